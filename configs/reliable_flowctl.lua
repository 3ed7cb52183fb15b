-- SPDX-License-Identifier: MIT
-- reliable_flowctl: reliable delivery with credit-based flow control.
return {
  extends = "reliable",
  protocols = { "checksum", "reliability", "flow_control" },
  flow_control = { credits = 16 },
  -- a receiver holds recv_ring + min(rx_fifo, staging slots) undrained frames: 16 + 256 = 272,
  -- room for 8 nodes x (credits + control reserve) (protocols/flow_control/hooks.h)
  nic = { rx_fifo = 256 },
}
