return {
  name = "p", order = 1, implemented = true,
  help = "test protocol p", order_why = "test",
  params = {},
  header = {},
  pointcuts = {
    "send_frame",
    "recv_frmae",
  },
  requires = {}, conflicts = {}, sources = {},
}
