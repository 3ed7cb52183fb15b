-- SPDX-License-Identifier: MIT
-- all_nic: every registered protocol composed at once, multicast replicated by the NIC.
return {
  extends = "all",
  protocols = { "checksum", "reliability", "flow_control", "multicast", "dynamic_mtu", "rendezvous",
                "active_net" },
  -- rendezvous from 32 KiB (its default is 128 KiB): the suites' mid-size messages take it too
  rendezvous = { threshold = 32768 },
  multicast = { mode = "nic", max_groups = 16 },
}
