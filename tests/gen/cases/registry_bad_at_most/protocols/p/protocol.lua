return {
  name = "p", order = 1, implemented = true,
  help = "test protocol p", order_why = "test",
  params = {
    { name = "lo", type = "integer", default = 1, at_most = "hi", help = "not a list" },
    { name = "hi", type = "integer", default = 2, at_most = { "mode", 3 }, help = "a string parameter, a number" },
    { name = "mode", type = "string", default = "a", values = { "a" }, zero_means = "hi", help = "not an integer" },
    { name = "n", type = "integer", default = 0, zero_means = "Nic.MTU", help = "not a key" },
  },
  header = {},
  pointcuts = { "send_frame" },
  requires = {}, conflicts = {}, sources = {},
}
