return {
  name = "other", order = 5, implemented = true,
  help = "test protocol other", order_why = "test",
  params = {},
  header = {},
  pointcuts = { "send_frame" },
  requires = {}, conflicts = {}, sources = {},
}
