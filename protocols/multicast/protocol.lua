-- SPDX-License-Identifier: MIT
-- Registry entry of multicast: group sends, replicated by the host or by the NIC.
return {
  name = "multicast",
  order = 40,
  implemented = true,
  help = "send one message to a group of nodes (lc_mcast, lc_bcast); replicated on the host "
    .. "(one unicast send per member) or by the sender's NIC (the host sends once)",
  order_why = "last: in host mode each copy is an ordinary unicast message, so the protocols "
    .. "before it sequence, protect and pay credits for every copy; in nic mode its send_frame "
    .. "hook runs first (send_frame is reversed) and names the members in the stamp table, so "
    .. "the protocols below it stamp their per-member fields (member_fields), and its recv_frame "
    .. "hook maps group frames into the per-source message order after the protocols below "
    .. "put them in order",
  params = {
    { name = "mode", type = "string", default = "host", values = { "host", "nic" },
      help = "\"host\": lc_mcast sends one unicast copy per member through the whole pipeline; "
        .. "\"nic\": the host posts each frame once and the sender's MCP copies it to every "
        .. "member at nic_tx (flat tree); with protocols that declare per-member or seal fields "
        .. "the host adds a per-member stamp table in NIC SRAM and the MCP stamps and seals "
        .. "each copy; both modes compose with every protocol" },
    { name = "max_groups", type = "integer", default = 16, min = 1, max = 4096,
      help = "entries of the group table in the job segment (group ids 0 .. max_groups-1)" },
    { name = "max_members", type = "integer", default = 64, min = 1, max = 255,
      help = "nic mode with stamp tables: members (the sender aside) one group frame may "
        .. "reach; sizes the SRAM stamp tables (nic.send_ring x (16 + stamp x max_members) "
        .. "bytes, lc_coop.h); lc_mcast to a larger group fails with LC_ERR_TOOBIG" },
    { name = "groups", type = "int_lists", default = {}, min = 0, max = 4095, at_most = { "max_groups" },
      help = "static groups, e.g. { { 0, 1, 2 }, { 1, 3 } }: group ids 0, 1, ... in order, made "
        .. "by the launcher before the nodes start (commrun --group ones follow them); each "
        .. "node id < the job's node count (checked by commrun and by lc_open)" },
  },
  header = {},
  pointcuts = { "init", "send_frame", "recv_frame", "nic_tx", "job_init" },
  -- lc_group_*, lc_mcast, lc_bcast: installed beside comm.h only in configs with multicast
  api = "multicast.h",
  -- the NIC's group table in the job segment, and replication of group frames by the NIC
  nic_groups = { entries = "max_groups", replicate = { mode = "nic" }, max_members = "max_members" },
  -- every job holds the nodes the static groups name (LC_PC_MIN_NODES, lc_coop.h)
  job_nodes = "groups",
  requires = {},
  conflicts = {},
  sources = { "group.c" },
}
