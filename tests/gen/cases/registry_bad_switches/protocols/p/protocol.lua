return {
  name = "p", order = 1, implemented = true,
  help = "test protocol p", order_why = "test",
  params = {},
  header = { { "uint16_t", "on", "flags" }, { "uint8_t", "chk", "check" } },
  pointcuts = { "send_frame" },
  switches = { flags = "on", check = "nope" },
  requires = {}, conflicts = {}, sources = {},
}
