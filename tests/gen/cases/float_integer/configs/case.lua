return {
  nic = { sram_bytes = 2^21 },
}
