-- SPDX-License-Identifier: MIT
-- multicast_host: group sends replicated by the sender's host (one unicast copy per member).
return {
  extends = "baseline",
  protocols = { "multicast" },
  multicast = { mode = "host", max_groups = 16 },
}
