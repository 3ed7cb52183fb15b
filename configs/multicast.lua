-- SPDX-License-Identifier: MIT
-- multicast: group sends replicated by the NIC.
return {
  extends = "baseline",
  protocols = { "multicast" },
  multicast = { mode = "nic", max_groups = 16 },
}
