-- SPDX-License-Identifier: MIT
-- Registry entry of multicast: group sends, replicated by the host or by the NIC.
return {
  name = "multicast",
  order = 40,
  implemented = false,
  help = "send one message to a group of nodes; replicated on the host (one send per member) "
    .. "or on the NIC along a spanning tree",
  order_why = "last: it replicates frames that earlier protocols have already sequenced, "
    .. "checksummed and paid credits for, and forwards only messages they accepted",
  params = {
    { name = "mode", type = "string", default = "host", values = { "host", "nic" },
      help = "\"host\": the sender's host sends one copy per member; \"nic\": the MCP "
        .. "replicates along a spanning tree (nic_tx, nic_rx)" },
    { name = "max_groups", type = "integer", default = 16, min = 1, max = 4096,
      help = "groups a job may define (group ids 0 .. max_groups-1)" },
  },
  header = {
    { "uint16_t", "group", "destination group id (frames with LC_FF_GROUP)" },
  },
  pointcuts = { "send_msg", "deliver_msg", "nic_tx", "nic_rx" },
  requires = {},
  conflicts = {},
  sources = {},
}
