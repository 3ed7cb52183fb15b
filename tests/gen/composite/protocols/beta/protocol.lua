-- SPDX-License-Identifier: MIT
-- Test protocol beta: second in composition order, also on the NIC side.
return {
  name = "beta", order = 2, implemented = true,
  help = "test protocol beta", order_why = "runs second",
  params = {
    { name = "mode", type = "string", default = "b", values = { "a", "b" }, help = "a test choice" },
  },
  header = { { "uint64_t", "stamp", "eight bytes, aligned to 8" } },
  pointcuts = { "init", "fini", "send_frame", "poll", "nic_tx" },
  requires = { "alpha" }, conflicts = {}, sources = {},
}
