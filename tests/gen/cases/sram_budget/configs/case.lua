return {
  nic = {
    sram_bytes = 256 << 10,
    send_ring = 32,
  },
}
