-- SPDX-License-Identifier: MIT
-- flowctl_multicast_nic: group frames replicated by the NIC under credit-based flow control (a credit at every member per frame).
return {
  extends = "flowctl_multicast",
  protocols = { "flow_control", "multicast" },
  multicast = { mode = "nic", max_groups = 16 },
}
