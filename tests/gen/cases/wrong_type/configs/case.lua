return {
  mtu = "big",
}
