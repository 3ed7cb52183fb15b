-- SPDX-License-Identifier: MIT
-- all_nic: every registered protocol composed at once, multicast replicated by the NIC.
return {
  extends = "all",
  protocols = { "checksum", "reliability", "flow_control", "multicast", "dynamic_mtu", "rendezvous",
                "active_net" },
  multicast = { mode = "nic", max_groups = 16 },
}
