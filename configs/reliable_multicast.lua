-- SPDX-License-Identifier: MIT
-- reliable_multicast: group sends over a lossy network; each member's copy is a reliable unicast.
return {
  extends = "reliable",
  protocols = { "checksum", "reliability", "multicast" },
  -- 8 node processes share 2 cores: a member may not run for many timeouts in a row
  reliability = { max_retries = 40 },
  multicast = { mode = "host", max_groups = 16 },
}
