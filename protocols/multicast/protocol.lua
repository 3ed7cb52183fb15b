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
        .. "conflicts with checksum, reliability and flow_control (see conflicts)" },
    { name = "max_groups", type = "integer", default = 16, min = 1, max = 4096,
      help = "entries of the group table in the job segment (group ids 0 .. max_groups-1)" },
    { name = "groups", type = "int_lists", default = {}, min = 0, max = 4095,
      help = "static groups, e.g. { { 0, 1, 2 }, { 1, 3 } }: group ids 0, 1, ... in order, made "
        .. "by the launcher before the nodes start (commrun --group ones follow them); each "
        .. "node id < the job's node count (checked by commrun and by lc_open)" },
  },
  header = {},
  pointcuts = { "init", "recv_frame", "nic_tx" },
  requires = {},
  conflicts = {
    { "checksum", when = { mode = "nic" },
      why = "the MCP rewrites dst of each copy after checksum sealed the header (the CRC covers dst); use mode = \"host\"" },
    { "reliability", when = { mode = "nic" },
      why = "each copy would carry the root's group sequence number and CRC, not a per-member number; use mode = \"host\"" },
    { "flow_control", when = { mode = "nic" },
      why = "a group frame is not credit-checked at each member, so the copies could overflow a receiver; use mode = \"host\"" },
  },
  sources = { "group.c" },
}
