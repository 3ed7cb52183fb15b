return {
  nic = {
    tx_dma = 100,
  },
}
