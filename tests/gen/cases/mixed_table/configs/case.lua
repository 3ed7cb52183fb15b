return {
  nic = { tx_fifo = 4, 8 },
}
