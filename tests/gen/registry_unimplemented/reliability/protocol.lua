-- SPDX-License-Identifier: MIT
-- Test-only registry entry: reliability, not implemented (the diagnostic of an unimplemented protocol).
return {
  name = "reliability",
  order = 20,
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
