return {
  name = "p", order = 1, implemented = true,
  help = "test protocol p", order_why = "test",
  params = {},
  header = {},
  pointcuts = { "send_frame", "send_msg" },
  switchable = { quiet = "lc_p_quiet" },
  requires = {}, conflicts = {}, sources = {},
}
