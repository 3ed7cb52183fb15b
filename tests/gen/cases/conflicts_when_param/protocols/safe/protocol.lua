return {
  name = "safe", order = 2, implemented = true,
  help = "test protocol safe", order_why = "test",
  params = {},
  header = {},
  pointcuts = { "send_frame" },
  requires = {}, conflicts = {}, sources = {},
}
