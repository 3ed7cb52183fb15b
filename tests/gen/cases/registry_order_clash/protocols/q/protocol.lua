return {
  name = "q", order = 5, implemented = true,
  help = "test protocol q", order_why = "test",
  params = {},
  header = {},
  pointcuts = { "send_frame" },
  requires = {}, conflicts = {}, sources = {},
}
