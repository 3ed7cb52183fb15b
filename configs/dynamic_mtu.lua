-- SPDX-License-Identifier: MIT
-- dynamic_mtu: checksum and reliability with the frame size per peer adapted at run time to what
-- the link resends (dynamic_mtu).
return {
  extends = "baseline",
  protocols = { "checksum", "reliability", "dynamic_mtu" },
  reliability = { timeout_us = 200, window = 32, max_retries = 16, mode = "window" },
  dynamic_mtu = { min = 512, start = 0, window = 256, adapt = "on" },
}
