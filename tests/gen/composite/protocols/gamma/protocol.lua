-- SPDX-License-Identifier: MIT
-- Test protocol gamma: registered, not selected; only its dummies appear.
return {
  name = "gamma", order = 3, implemented = true,
  help = "test protocol gamma", order_why = "runs last",
  params = {},
  header = { { "uint32_t", "x", "absent from the header: gamma is not active" } },
  pointcuts = { "init", "send_frame" },
  requires = {}, conflicts = {}, sources = {},
}
