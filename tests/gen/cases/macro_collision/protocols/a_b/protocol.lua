return {
  name = "a_b", order = 2, implemented = true,
  help = "test protocol a_b", order_why = "test",
  params = { { name = "c", type = "integer", default = 2, min = 0, max = 9, help = "y" } },
  header = {},
  pointcuts = { "send_frame" },
  requires = {}, conflicts = {}, sources = {},
}
