return {
  mtu = 4096
  nic = {},
}
