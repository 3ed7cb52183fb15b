-- SPDX-License-Identifier: MIT
-- baseline: the default configuration, no protocols; the pipeline alone on the emulated NIC.
return {
  protocols = {},
  mtu = 8192,                       -- payload bytes per frame
  pio_threshold = 256,              -- up to this many bytes by PIO, larger by DMA
  backpressure_timeout_us = 500000, -- backpressure time limit (docs/config-reference.md)
  nic = {
    sram_bytes = 2 << 20,           -- 2 MiB of NIC SRAM
    slot_bytes = 8256,              -- 8192 payload + room for the frame header
    send_ring = 16,
    recv_ring = 16,
    tx_dma = 64,
    rx_dma = 64,
    tx_fifo = 64,
    rx_fifo = 64,
    mcp = "inline",
  },
  host = {
    staging_bytes = 4 << 20,        -- 4 MiB: 256 staging slots of 8256 bytes
    max_requests = 1024,
  },
  network = {
    switch_ports = 16,
  },
}
