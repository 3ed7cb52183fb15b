return {
  name = "msg", order = 1, implemented = true,
  help = "test protocol msg", order_why = "test",
  params = {},
  header = {
    { "uint32_t", "len", "collides with the baseline msg_len" },
  },
  pointcuts = { "send_frame" },
  requires = {}, conflicts = {}, sources = {},
}
