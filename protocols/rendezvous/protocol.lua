-- SPDX-License-Identifier: MIT
-- Registry entry of rendezvous: large messages by request-to-send, clear-to-send and RDMA into
-- the receiver's buffer (three copies instead of four).
return {
  name = "rendezvous",
  order = 50,
  implemented = true,
  help = "messages of at least threshold bytes go by rendezvous: the sender announces the "
    .. "message (its envelope, no data), the receiver matches it to its receive, registers that "
    .. "buffer with its NIC (through a registration cache) and answers clear-to-send with the "
    .. "handle; the sender's RDMA frames land in the user's buffer straight from the NIC, and a "
    .. "finish frame completes both sides: no staging copy at the receiver",
  order_why = "after the protocols that check, order and credit frames (lower orders): it "
    .. "consumes its RDMA data frames and its control frames once they are intact, in order "
    .. "and counted",
  params = {
    -- 128 KiB: rendezvous is not faster than eager at any size on a 2-core host (its
    -- request-to-send and clear-to-send cost 4-23 % of a 32-256 KiB ping-pong, <= 4 % from 1 MiB,
    -- docs/internals.md "Rendezvous in time"), so it starts above the 4-64 KiB range it must not slow
    { name = "threshold", type = "integer", default = 131072, min = 1, max = 1 << 30,
      help = "messages of at least this many bytes go by rendezvous; smaller ones eagerly" },
    { name = "max_active", type = "integer", default = 32, min = 1, max = 1024,
      help = "rendezvous transfers one node drives at once as sender, and as many as receiver "
        .. "(a further large send waits at the head of its send queue; a further match waits "
        .. "for a free one)" },
    { name = "reg_cache", type = "integer", default = 16, min = 1, max = 4096,
      help = "receive buffers kept registered with the NIC between transfers (the registration "
        .. "cache); at most nic.reg_entries" },
  },
  header = {},
  pointcuts = { "init", "fini", "send_msg", "recv_frame", "match_announced", "poll" },
  provides = { "announce" },
  stats = {
    { "rndv_sends", "messages sent by rendezvous" },
    { "rndv_recvs", "messages received by rendezvous" },
    { "rndv_reg_hits", "receive buffers found registered in the cache" },
    { "rndv_reg_misses", "receive buffers registered with the NIC (cache misses)" },
    { "rndv_stale", "RDMA or control frames of no transfer in progress, dropped" },
  },
  requires = {},
  conflicts = {},
  sources = { "rendezvous.c" },
}
