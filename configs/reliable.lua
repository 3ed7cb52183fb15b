-- SPDX-License-Identifier: MIT
-- reliable: checksum and reliability (retransmission) over a lossy network.
return {
  extends = "baseline",
  protocols = { "checksum", "reliability" },
  reliability = { timeout_us = 200, window = 32, max_retries = 8, mode = "window" },
}
