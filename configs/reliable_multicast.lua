-- SPDX-License-Identifier: MIT
-- reliable_multicast: group sends over a lossy network; each member's copy is a reliable unicast.
return {
  extends = "reliable",
  protocols = { "checksum", "reliability", "multicast" },
  multicast = { mode = "host", max_groups = 16 },
}
