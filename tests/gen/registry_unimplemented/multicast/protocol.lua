-- SPDX-License-Identifier: MIT
-- Test-only registry entry: multicast, not implemented (the diagnostic of an unimplemented protocol).
return {
  name = "multicast",
  order = 40,
  implemented = false,
  help = "test-only entry without an implementation",
  order_why = "test-only",
  params = {},
  header = {},
  pointcuts = {},
  requires = {},
  conflicts = {},
  sources = {},
}
