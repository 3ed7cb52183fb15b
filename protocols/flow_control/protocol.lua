-- SPDX-License-Identifier: MIT
-- Registry entry of flow_control: credit-based flow control per peer.
return {
  name = "flow_control",
  order = 30,
  implemented = true,
  help = "credit-based flow control: a sender spends a credit per frame and waits (LC_RETRY) "
    .. "when it has none; the receiver returns credits as it frees staging slots",
  order_why = "after the protocols that check frames and put them in order (lower orders), "
    .. "because a frame must be accepted as intact and in order before it returns a credit; "
    .. "a duplicate or damaged frame must not return one",
  params = {
    { name = "credits", type = "integer", default = 4, min = 1, max = 4096,
      help = "frames a sender may have in flight to one peer before it waits for credits" },
  },
  header = {
    { "uint16_t", "credit", "low 16 bits of the data frames drained from the destination "
      .. "(cumulative; piggybacked credit return)" },
  },
  pointcuts = { "init", "send_frame", "after_send", "recv_frame", "poll" },
  -- each member's copy of a replicated frame carries that member's count
  member_fields = { "credit" },
  -- no receiver holds more frames from a sender than its buffers take
  provides = { "credits" },
  stats = {
    { "fc_resync_lost", "data frames declared lost by a credit resync (without exactly_once)" },
  },
  requires = {},
  conflicts = {},
  sources = { "flow_control.c" },
}
