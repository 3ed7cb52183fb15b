-- SPDX-License-Identifier: MIT
-- multicast_static: host-mode multicast with static groups from the config (ids 0 and 1).
return {
  extends = "multicast_host",
  -- groups that fit every job of 2 nodes or more, so the whole suite runs in this config;
  -- a 1-node job is refused at lc_open (group 0 names node 1): protocols/multicast/test_multicast.c
  multicast = { groups = { { 0, 1 }, { 1 } } },
}
