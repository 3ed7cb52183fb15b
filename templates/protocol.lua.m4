-- SPDX-License-Identifier: MIT
-- Registry entry of LC_NAME (scaffolded by scons new_protocol=LC_NAME: write its help and order_why).
return {
  name = "LC_NAME",
  order = LC_ORDER,
  implemented = true,
  help = "LC_NAME: one line saying what this protocol does",
  order_why = "after the shipped protocols until its place in the composition is decided",
  params = {},
  header = {},
  pointcuts = { LC_PC_HOST_NAMES },
  requires = {},
  conflicts = {},
  sources = {},
}
