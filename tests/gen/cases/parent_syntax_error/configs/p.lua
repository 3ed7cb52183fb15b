return {
  mtu = = 1,
}
