return {
  mtu = 1024,
  [true] = 1, [false] = 2,
}
