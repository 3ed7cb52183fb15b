return {
  name = "acks", order = 1, implemented = true,
  help = "test protocol acks", order_why = "test",
  params = {},
  header = {},
  pointcuts = { "send_frame" },
  requires = { "seqno" }, conflicts = {}, sources = {},
}
