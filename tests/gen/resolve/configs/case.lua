-- SPDX-License-Identifier: MIT
-- Resolve test: lists replace, tables merge key by key, an empty table changes nothing.
return {
  extends = "parent",
  protocols = {},
  nic = { recv_ring = 4 },
  host = {},
}
