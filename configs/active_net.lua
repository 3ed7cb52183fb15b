-- SPDX-License-Identifier: MIT
-- active_net: checksum and reliability switched on and off per peer and per message at run time
-- (lc_active_net_set), by activation flags in every frame.
return {
  extends = "baseline",
  protocols = { "checksum", "reliability", "active_net" },
  reliability = { timeout_us = 200, window = 32, max_retries = 16, mode = "window" },
  active_net = { start = "on", changes = 8 },
}
