-- SPDX-License-Identifier: MIT
-- The core configuration keys: the one source of their type, default, range and help.
--
-- Columns:
--   key      dotted path in the config table ("nic.send_ring" is nic = { send_ring = ... })
--   type     "integer" | "string" | "boolean" | "list" (list of strings)
--   default  value when no config in the extends chain sets it (nil: optional)
--   min/max  inclusive range of an integer
--   pow2     the integer must be a power of two (ring and FIFO sizes)
--   values   allowed strings
--   macro    the lc_config.h macro holding the value (nil: not a constant)
--   members  for a string key with values: the lc_config.h macro prefix of its members, one
--            macro <members>_<VALUE> each, 1 for the value chosen and 0 for the others
--   needs    for a string key with values: value -> capability (registry provides) some
--            composed protocol must provide when that value is chosen, with the reason
--   help     one line for docs/config-reference.md
-- Protocol parameters are not listed here: they come from protocols/<p>/protocol.lua.
local KiB, MiB = 1 << 10, 1 << 20

return {
  { key = "extends", type = "string",
    help = "name of the config this one starts from (configs/<name>.lua); "
        .. "tables merge key by key, lists replace" },
  { key = "protocols", type = "list", default = {},
    help = "protocols to compose, by registry name; they run in their registry order, "
        .. "not in the order listed" },
  { key = "mtu", type = "integer", default = 8192, min = 64, max = 1 << 20,
    macro = "LC_MTU",
    help = "largest payload of one frame in bytes; longer messages are split into frames" },
  { key = "pio_threshold", type = "integer", default = 256, min = 0, max = 1 << 20,
    macro = "LC_PIO_THRESHOLD",
    help = "frames with at most this many payload bytes are copied by PIO, larger ones go by DMA" },
  { key = "backpressure_timeout_us", type = "integer", default = 500000, min = 1,
    max = 3600 * 1000000, macro = "LC_BACKPRESSURE_TIMEOUT_US",
    help = "the backpressure time limit: a frame at the full Receive Ring of a stopped node "
      .. "(SIGSTOP) is dropped after it (the send fails with LC_ERR_LOST), a live node however slow "
      .. "only delays its senders; a send that gets no Send Ring slot while the NIC makes no "
      .. "progress fails after it with LC_ERR_TIMEOUT; a receive from a dead node fails after it; "
      .. "lc_close drains pending sends for it plus 1 s; commrun kills the rest of a job 2 x it + "
      .. "1 s after a node failed.  One key on purpose: each use asks how long a peer may make no "
      .. "progress before the wait is a deadlock or a death rather than slowness, and one value "
      .. "keeps the answers consistent (no host wait gives up while the link below it still "
      .. "waits, and the launcher outlasts both).  LC_BACKPRESSURE_US in the environment of commrun "
      .. "and its nodes runs one build with another limit (framework/geom.h)" },

  { key = "nic.sram_bytes", type = "integer", default = 2 * MiB, min = 64 * KiB, max = 1 << 30,
    macro = "LC_NIC_SRAM_BYTES",
    help = "size of the NIC's SRAM; the six buffers (and the stamp tables, where a protocol "
        .. "needs them) and the control block must fit in it" },
  { key = "nic.slot_bytes", type = "integer", default = 8256, min = 128, max = (1 << 20) + 4 * KiB,
    macro = "LC_NIC_SLOT_BYTES",
    help = "bytes of one Send/Receive Ring slot (and of one host staging slot): "
        .. "the NIC's 8-byte publication word of a Receive Ring slot, the frame header and at most mtu "
        .. "bytes of payload; a multiple of 64" },
  { key = "nic.send_ring", type = "integer", default = 16, min = 2, max = 4096, pow2 = true,
    macro = "LC_NIC_SEND_RING",
    help = "slots of the Send Ring (host -> NIC frames waiting to be injected)" },
  { key = "nic.recv_ring", type = "integer", default = 16, min = 2, max = 4096, pow2 = true,
    macro = "LC_NIC_RECV_RING",
    help = "slots of the Receive Ring (frames off the network waiting for the host)" },
  { key = "nic.tx_dma", type = "integer", default = 64, min = 2, max = 65536, pow2 = true,
    macro = "LC_NIC_TX_DMA",
    help = "blocks of the transmit DMA chain (32 bytes each)" },
  { key = "nic.rx_dma", type = "integer", default = 64, min = 2, max = 65536, pow2 = true,
    macro = "LC_NIC_RX_DMA",
    help = "blocks of the receive DMA chain (32 bytes each)" },
  { key = "nic.tx_fifo", type = "integer", default = 64, min = 2, max = 65536, pow2 = true,
    macro = "LC_NIC_TX_FIFO",
    help = "entries of the doorbell FIFO host -> NIC (16 bytes each)" },
  { key = "nic.rx_fifo", type = "integer", default = 64, min = 2, max = 65536, pow2 = true,
    macro = "LC_NIC_RX_FIFO",
    help = "entries of the completion FIFO NIC -> host (16 bytes each)" },
  { key = "nic.reg_entries", type = "integer", default = 64, min = 0, max = 4096,
    macro = "LC_NIC_REG_ENTRIES",
    help = "entries of the NIC's memory registration table in SRAM (32 bytes each; 0: no "
        .. "registered memory, every RDMA frame is refused): host regions a remote NIC may "
        .. "write straight into (RDMA, nic/rdma.c), each with its protection tag, rights and a "
        .. "generation that the 32-bit handle carries" },
  { key = "nic.mcp", type = "string", default = "inline", values = { "inline", "thread" },
    help = "how the MCP runs: \"inline\" inside the host's progress calls, "
        .. "\"thread\" as its own thread per node (LC_NIC_MCP_THREAD)" },
  { key = "nic.link_engine", type = "string", default = "sender", values = { "sender", "either" },
    members = "LC_NIC_LINK_ENGINE",
    help = "who copies a DMA frame across the link (Send Ring into the peer's Receive Ring): "
        .. "\"sender\" its own NIC's Net-Send only; \"either\" also the receiving NIC, whose idle "
        .. "inline passes pull the frames of a sender that lets them (inline MCP, no fault injector, "
        .. "no nic_tx hook, untimed network).  Per process, overridden by the environment "
        .. "variable LC_LINK_ENGINE; docs/internals.md measures both" },

  { key = "launcher.bind", type = "string", default = "none", values = { "none", "core" },
    members = "LC_LAUNCHER_BIND",
    help = "where commrun runs the nodes unless --bind says: \"core\" pins node i to the i-th "
        .. "core it may use, one core each (as mpirun --bind-to core; more nodes than cores: "
        .. "not bound, with a warning), \"none\" leaves them to the scheduler" },

  { key = "host.staging_bytes", type = "integer", default = 4 * MiB, min = 4 * KiB, max = 1 << 30,
    macro = "LC_HOST_STAGING_BYTES",
    help = "host staging area for received frames; split into slot_bytes slots, "
        .. "rounded down to a power of two (at least 2)" },
  { key = "host.max_requests", type = "integer", default = 1024, min = 1, max = 1 << 20,
    macro = "LC_HOST_MAX_REQUESTS",
    help = "pending non-blocking requests per node (lc_isend / lc_irecv)" },
  { key = "host.unexpected_bytes", type = "integer", default = 4 * MiB, min = 0, max = 1 << 40,
    macro = "LC_HOST_UNEXPECTED_BYTES",
    help = "bytes of unexpected messages (arrived before a matching receive) a node holds; "
        .. "a message that would exceed it waits (its first frame parked, its sender's NIC "
        .. "holding that sender's later data frames; other senders keep flowing) until a "
        .. "receive is posted for it or held messages are received (docs/internals.md, "
        .. "\"The matching envelope\")" },

  { key = "network.switch_ports", type = "integer", default = 16, min = 2, max = 4096,
    macro = "LC_NET_SWITCH_PORTS",
    help = "ports of the emulated Myrinet switch: the largest job has this many nodes" },
  { key = "network.link_mbps", type = "integer", default = 0, min = 0, max = 1000000,
    macro = "LC_NET_LINK_MBPS",
    help = "the timed network: every link's bandwidth in Mb/s (10^6 bits a second); a link "
        .. "carries one frame at a time, header included, for bytes x 8000 / link_mbps ns.  0 (and "
        .. "hop_ns 0): frames cross at memory speed, and the timing is not compiled "
        .. "(docs/internals.md, \"The timed network\")" },
  { key = "network.hop_ns", type = "integer", default = 0, min = 0, max = 1000000000,
    macro = "LC_NET_HOP_NS",
    help = "the timed network: nanoseconds a frame's head takes through one switch and its "
        .. "cable (cut-through, wormhole routing: a head that finds its output port busy waits, "
        .. "and the links behind it stay taken); 0 with link_mbps 0: untimed" },

  -- The EPOS families (personalities/epos/): the application names the family, the
  -- configuration picks the member; the unselected members are not compiled.
  { key = "epos.communicator", type = "string", default = "link",
    values = { "link", "port", "mailbox" }, members = "LC_EPOS_COMMUNICATOR",
    help = "the Communicator member behind epos_comm_*: \"link\" (an end-point bound to one "
        .. "peer), \"port\" (many senders, one receiving thread), \"mailbox\" (many senders, "
        .. "many receiving threads, each message taken once)" },
  { key = "epos.channel", type = "string", default = "datagram", values = { "datagram", "stream" },
    members = "LC_EPOS_CHANNEL",
    needs = { stream = { capability = "exactly_once",
                         why = "the network can lose frames (a stopped node, injected faults), "
                            .. "and a byte stream with a hole is no stream" } },
    help = "the Channel member the Communicator sends through: \"datagram\" (message boundaries "
        .. "kept) or \"stream\" (an in-order byte stream, boundaries dissolved, flow-controlled "
        .. "end to end; needs a protocol that provides exactly_once)" },
  { key = "epos.network", type = "string", default = "myrinet", values = { "myrinet" },
    members = "LC_EPOS_NETWORK",
    help = "the Network member: \"myrinet\", the emulated Myrinet NIC (its traits, MTU, "
        .. "reliability, multicast, come from this config)" },
}
