-- SPDX-License-Identifier: MIT
-- reliable: reliability (CRC32C, acks, retransmission) over a lossy network; checksum is its own config.
return {
  extends = "baseline",
  protocols = { "reliability" },
  reliability = { timeout_us = 200, window = 32, max_retries = 16, mode = "window" },
  -- the EPOS families (personalities/epos/): a Port over a Stream channel
  epos = { communicator = "port", channel = "stream" },
}
