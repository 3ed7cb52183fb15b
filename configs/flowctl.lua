-- SPDX-License-Identifier: MIT
-- flowctl: credit-based flow control, so a fast sender cannot overrun a slow receiver.
return {
  extends = "baseline",
  protocols = { "flow_control" },
  flow_control = { credits = 8 },
  -- with the MCP inline a sleeping receiver holds undrained frames in its Receive Ring alone:
  -- 128 slots, room for 8 nodes x (8 credits + 4 control: credit frames, probe, answer) = 96 (protocols/flow_control/hooks.h)
  nic = { rx_fifo = 256, recv_ring = 128, sram_bytes = 4 << 20 },
}
