-- SPDX-License-Identifier: MIT
-- Registry entry of dynamic_mtu: the frame size per peer as a run-time value, adapted to what
-- the link loses (seed 004's run-time tailoring of the MTU).
return {
  name = "dynamic_mtu",
  order = 45,
  implemented = true,
  help = "the payload bytes per frame towards each peer are a run-time value between min and "
    .. "max (at most the config's mtu, a ring slot), taken by each message when it enters send "
    .. "(all its frames but the last carry that many bytes): the receiver needs no agreement "
    .. "beyond that, a message's frames arrive in order at their offsets; every window frames "
    .. "the sender weighs the frames resent towards the peer per frame sent (lc_proto_resent, by "
    .. "whichever protocol repairs the link), and moves to the size a loss model (a part per "
    .. "frame, a part per byte) and a cost per byte (frame_cost, resend_cost) make cheapest; a "
    .. "storm of resends halves it; lc_dynamic_mtu_set fixes a peer's size",
  order_why = "its send_msg only sets the message's frame size and always continues, so its "
    .. "place among the message hooks does not matter; numbered after the protocols that check, "
    .. "order and resend frames, whose resends it reads",
  params = {
    { name = "min", type = "integer", default = 512, min = 64, max = 1048576,
      at_most = { "mtu", "max" },
      help = "smallest payload per frame the adaptation chooses (at least 64, LC_FRAME_MIN)" },
    { name = "max", type = "integer", default = 0, min = 0, max = 1048576,
      at_most = { "mtu" }, zero_means = "mtu",
      help = "largest payload per frame; 0: the config's mtu; never more than it" },
    { name = "start", type = "integer", default = 0, min = 0, max = 1048576,
      help = "the size every peer starts at, the largest of max, max/2, ... down to min not "
        .. "above it; 0: max.  A link that damages long frames collapses under go-back-N before "
        .. "a window is weighed: starting below max costs a clean link a window or two" },
    { name = "window", type = "integer", default = 256, min = 8, max = 1000000,
      help = "frames sent to a peer between two decisions on its frame size" },
    { name = "frame_cost", type = "integer", default = 1024, min = 0, max = 1048576,
      help = "the fixed work of a frame (header, doorbell, each engine's hand-off) in bytes of "
        .. "payload that cost as much: what a smaller frame pays more per byte" },
    { name = "resend_cost", type = "integer", default = 16384, min = 0, max = 1073741824,
      help = "what a resent frame costs beyond sending it again (the wait for the timeout or "
        .. "the gap), in bytes of payload that cost as much" },
    { name = "adapt", type = "string", default = "on", values = { "on", "off" },
      help = "\"on\": each peer's size follows the resends; \"off\": it stays at max until "
        .. "lc_dynamic_mtu_set changes it" },
  },
  header = {},
  pointcuts = { "init", "send_msg" },
  provides = { "frame_sizes" },
  api = "dynamic_mtu.h",
  stats = {
    { "mtu_changes", "frame size changes towards a peer (adaptation and lc_dynamic_mtu_set)" },
    { "mtu_windows", "windows of frames whose resends were weighed" },
  },
  requires = {},
  conflicts = {},
  sources = { "dynamic_mtu.c" },
}
