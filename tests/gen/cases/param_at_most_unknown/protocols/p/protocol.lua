return {
  name = "p", order = 1, implemented = true,
  help = "test protocol p", order_why = "test",
  params = {
    { name = "n", type = "integer", default = 4, at_most = { "nic.no_such_key" }, help = "bound by no key" },
  },
  header = {},
  pointcuts = { "send_frame" },
  requires = {}, conflicts = {}, sources = {},
}
