-- SPDX-License-Identifier: MIT
-- Test protocol alpha: first in composition order; records its calls.
return {
  name = "alpha", order = 1, implemented = true,
  help = "test protocol alpha", order_why = "runs first",
  params = {
    { name = "level", type = "integer", default = 1, min = 0, max = 7, help = "a test value" },
    { name = "fast", type = "boolean", default = true, help = "a test flag" },
  },
  header = { { "uint8_t", "tag", "one byte" } },
  pointcuts = { "init", "fini", "send_frame", "poll" },
  requires = {}, conflicts = {}, sources = {},
}
