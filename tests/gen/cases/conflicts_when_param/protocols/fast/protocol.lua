return {
  name = "fast", order = 1, implemented = true,
  help = "test protocol fast", order_why = "test",
  params = {
    { name = "mode", type = "string", default = "a", values = { "a", "b" }, help = "mode" },
  },
  header = {},
  pointcuts = { "send_frame" },
  requires = {},
  conflicts = {
    { "safe", when = { mode = "b" }, why = "mode b rewrites what safe sealed; use mode = \"a\"" },
  },
  sources = {},
}
