-- SPDX-License-Identifier: MIT
-- Resolve test: the parent of case.lua.
return {
  protocols = { "checksum" },
  mtu = 4096,
  nic = { send_ring = 8, slot_bytes = 4160, mcp = "thread" },
  checksum = { cover = "header" },
}
