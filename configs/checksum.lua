-- SPDX-License-Identifier: MIT
-- checksum: the baseline plus CRC32C over every frame.
return {
  extends = "baseline",
  protocols = { "checksum" },
  checksum = { cover = "frame" },
}
