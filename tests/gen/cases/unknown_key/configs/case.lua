return {
  mtu = 4096,
  mtuu = 4096,
}
