return {
  name = "p", order = 5, implemented = true,
  help = "test protocol p", order_why = "test",
  params = {},
  header = {},
  pointcuts = { "send_frame" },
  requires = {}, conflicts = {}, sources = {},
}
