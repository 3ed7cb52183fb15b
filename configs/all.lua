-- SPDX-License-Identifier: MIT
-- all: every registered protocol composed at once (rendezvous: messages of 32 KiB and more).
return {
  extends = "reliable_flowctl",
  protocols = { "checksum", "reliability", "flow_control", "multicast", "dynamic_mtu", "rendezvous" },
  multicast = { mode = "host", max_groups = 16 },
  -- the EPOS families: a Mailbox over a Stream channel
  epos = { communicator = "mailbox", channel = "stream" },
}
