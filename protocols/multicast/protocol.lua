-- SPDX-License-Identifier: MIT
-- Registry entry of multicast: group sends, replicated by the host or by the NIC.
return {
  name = "multicast",
  order = 40,
  implemented = true,
  help = "send one message to a group of nodes (lc_mcast, lc_bcast); replicated on the host "
    .. "(one unicast send per member) or by the sender's NIC (the host sends once)",
  order_why = "last: in host mode each copy is an ordinary unicast message, so the protocols "
    .. "before it (checksum, reliability, flow control) sequence, protect and pay credits for "
    .. "every copy; in nic mode its recv_frame hook maps group frames into the per-source "
    .. "sequence space after every other protocol has seen the frame as sent",
  params = {
    { name = "mode", type = "string", default = "host", values = { "host", "nic" },
      help = "\"host\": lc_mcast sends one unicast copy per member through the whole pipeline "
        .. "(composes with every protocol); \"nic\": the host posts the message once and the "
        .. "sender's MCP copies each frame to every member at nic_tx (flat tree); nic mode "
        .. "cannot be combined with checksum, reliability or flow_control (the MCP rewrites "
        .. "the destination of each copy after their send hooks ran: the build stops with #error)" },
    { name = "max_groups", type = "integer", default = 16, min = 1, max = 4096,
      help = "entries of the group table in the job segment (group ids 0 .. max_groups-1)" },
  },
  header = {},
  pointcuts = { "recv_frame", "nic_tx" },
  requires = {},
  conflicts = {},
  sources = { "group.c" },
}
