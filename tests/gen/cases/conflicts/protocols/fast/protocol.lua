return {
  name = "fast", order = 1, implemented = true,
  help = "test protocol fast", order_why = "test",
  params = {},
  header = {},
  pointcuts = { "send_frame" },
  requires = {}, conflicts = { "safe" }, sources = {},
}
