-- SPDX-License-Identifier: MIT
-- flowctl: credit-based flow control, so a fast sender cannot overrun a slow receiver.
return {
  extends = "baseline",
  protocols = { "flow_control" },
  flow_control = { credits = 8 },
  -- a receiver holds recv_ring + min(rx_fifo, staging slots) undrained frames: 16 + 256 = 272,
  -- room for 8 nodes x (credits + control reserve) (protocols/flow_control/hooks.h)
  nic = { rx_fifo = 256 },
}
