return {
  name = "seqno", order = 2, implemented = true,
  help = "test protocol seqno", order_why = "test",
  params = {},
  header = {},
  pointcuts = { "send_frame" },
  requires = {}, conflicts = {}, sources = {},
}
