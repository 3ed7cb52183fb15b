return {
  name = "a", order = 1, implemented = true,
  help = "test protocol a", order_why = "test",
  params = { { name = "b_c", type = "integer", default = 1, min = 0, max = 9, help = "x" } },
  header = {},
  pointcuts = { "send_frame" },
  requires = {}, conflicts = {}, sources = {},
}
