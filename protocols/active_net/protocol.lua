-- SPDX-License-Identifier: MIT
-- Registry entry of active_net: protocol activation flags in every frame, switched per peer and
-- per message at run time (seed 004's active-network protocol).
return {
  name = "active_net",
  order = 60,
  implemented = true,
  help = "every frame carries activation flags, a bit for each composed protocol the registry "
    .. "marks switchable: the sender switches them on or off per peer, from a given "
    .. "message on (lc_active_net_set), and every node follows the flags of each frame it sends, "
    .. "keeps or receives; a protocol switched off costs a flag test per hook; control frames "
    .. "carry every flag; switching a protocol off waits until it has nothing outstanding to "
    .. "the peer (its quiet function), so nothing sent under it is lost or overtaken",
  order_why = "last: on send its send_frame runs first (frames go down the stack), so every "
    .. "other protocol's send_frame sees the frame's flags; its message latch sees every data "
    .. "frame, including an announced message's first frame",
  params = {
    { name = "start", type = "string", default = "on", values = { "on", "off" },
      help = "the switchable protocols' state towards every peer when the node opens: \"on\" "
        .. "(as if active_net were not composed) or \"off\" (lc_active_net_set turns them on)" },
    { name = "changes", type = "integer", default = 8, min = 1, max = 64,
      help = "changes per peer lc_active_net_set may have waiting for their message (a further "
        .. "one fails with LC_ERR_AGAIN until the sends before it have left)" },
  },
  header = {
    { "uint8_t", "on", "activation flags: bit LC_SWITCH_BIT_<P> set = protocol P acts on this frame" },
    { "uint8_t", "chk", "CRC-8 of on, inverted: a damaged pair (1 to 3 bits) switches every protocol on (lc_coop.h, lc_switch_flags)" },
  },
  pointcuts = { "init", "send_frame" },
  switches = { flags = "on", check = "chk" },
  api = "active_net.h",
  stats = {
    { "active_changes", "activation changes applied (at their first message's first frame)" },
    { "active_waits", "first frames held until a protocol switched off was quiet towards the peer" },
  },
  requires = {},
  conflicts = {},
  sources = { "active_net.c" },
}
