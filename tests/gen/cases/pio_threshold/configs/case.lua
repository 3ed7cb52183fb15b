return {
  mtu = 1024,
  pio_threshold = 2048,
  nic = { slot_bytes = 1088 },
}
