return {
  nic = {
    tx_fifo = 48,
  },
}
