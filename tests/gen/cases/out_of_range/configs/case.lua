return {
  pio_threshold = 0,
  mtu = 10,
}
