-- SPDX-License-Identifier: MIT
-- all: every registered protocol composed at once.
return {
  extends = "reliable_flowctl",
  protocols = { "checksum", "reliability", "flow_control", "multicast" },
  multicast = { mode = "host", max_groups = 16 },
  -- the EPOS families: a Mailbox over a Stream channel
  epos = { communicator = "mailbox", channel = "stream" },
}
