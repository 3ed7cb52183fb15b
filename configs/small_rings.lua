-- SPDX-License-Identifier: MIT
-- small_rings: tiny rings and a 1 KiB MTU, to stress ring wraparound and backpressure.
return {
  extends = "baseline",
  mtu = 1024,
  pio_threshold = 128,
  nic = {
    sram_bytes = 64 << 10,
    slot_bytes = 1088,            -- 1024 payload + header room, a multiple of 64
    send_ring = 2,
    recv_ring = 2,
    tx_dma = 4,
    rx_dma = 4,
    tx_fifo = 2,
    rx_fifo = 2,
  },
  host = {
    staging_bytes = 4 << 10,      -- 3 slots of 1088 bytes -> 2 staging slots
    max_requests = 8,
    unexpected_bytes = 64 << 10,  -- the unexpected budget reached by a few messages
  },
}
