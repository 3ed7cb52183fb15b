-- SPDX-License-Identifier: MIT
-- reliable_flowctl: reliable delivery with credit-based flow control.
return {
  extends = "reliable",
  protocols = { "checksum", "reliability", "flow_control" },
  flow_control = { credits = 8 },
  -- with the MCP inline a sleeping receiver holds undrained frames in its Receive Ring alone:
  -- 256 slots, room for 8 nodes x (8 credits + 6 control + min(window, credits + 4) + 5
  -- retransmitted) = 248 (protocols/flow_control/hooks.h)
  nic = { rx_fifo = 256, recv_ring = 256, sram_bytes = 4 << 20 },
  -- the EPOS families: a Mailbox over Datagrams
  epos = { communicator = "mailbox", channel = "datagram" },
}
