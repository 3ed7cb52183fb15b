-- SPDX-License-Identifier: MIT
-- all: every registered protocol composed at once (rendezvous: messages of 32 KiB and more, below;
-- active_net starts with every switchable protocol on, so the others act as they do without it).
return {
  extends = "reliable_flowctl",
  protocols = { "checksum", "reliability", "flow_control", "multicast", "dynamic_mtu", "rendezvous",
                "active_net" },
  -- rendezvous from 32 KiB (its default is 128 KiB): the suites' mid-size messages take it too
  rendezvous = { threshold = 32768 },
  multicast = { mode = "host", max_groups = 16 },
  -- the EPOS families: a Mailbox over a Stream channel
  epos = { communicator = "mailbox", channel = "stream" },
}
