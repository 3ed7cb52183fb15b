-- SPDX-License-Identifier: MIT
-- multicast_static: host-mode multicast with static groups from the config (ids 0 and 1).
return {
  extends = "multicast_host",
  multicast = { groups = { { 0, 2 }, { 1, 2, 3 } } },
}
