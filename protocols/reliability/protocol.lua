-- SPDX-License-Identifier: MIT
-- Registry entry of reliability: sequence numbers, acknowledgements and retransmission.
return {
  name = "reliability",
  order = 20,
  implemented = true,
  help = "per-peer frame sequence numbers, CRC32C over header and payload, cumulative acks "
    .. "piggybacked or sent alone, go-back-N retransmission after a timeout with backoff; turns "
    .. "loss, damage, duplication and reordering into in-order, exactly-once delivery",
  order_why = "after a protocol that drops damaged frames, so only intact frames are "
    .. "acknowledged; before the protocols that count accepted frames, which must see each "
    .. "frame once and in order",
  params = {
    { name = "timeout_us", type = "integer", default = 200, min = 10, max = 10000000,
      help = "initial and minimum retransmission timeout in microseconds; the timeout follows "
        .. "the measured round-trip time (SRTT + 4 RTTVAR) and doubles on each retry of the same "
        .. "frame up to max(64 x timeout_us, 100 ms)" },
    { name = "window", type = "integer", default = 32, min = 1, max = 4096, pow2 = true,
      help = "frames a sender may have unacknowledged per peer (copies kept for retransmission: "
        .. "window x (header + mtu) bytes per peer)" },
    { name = "max_retries", type = "integer", default = 16, min = 1, max = 1000,
      help = "timeouts of one frame at the backoff ceiling, while the peer's process is stopped, "
        .. "before the peer is declared dead (LC_ERR_PEER_DEAD; a live peer is never given up): "
        .. "a stopped peer is given up after at most (max_retries + 2) x "
        .. "max(64 x timeout_us, 100 ms)" },
    { name = "mode", type = "string", default = "window", values = { "window", "stop_and_wait" },
      help = "\"window\": sliding window of up to window frames; \"stop_and_wait\": one "
        .. "unacknowledged frame per peer (the naive variant, for comparison)" },
  },
  header = {
    { "uint32_t", "seq", "frame sequence number per (src, dst) pair" },
    { "uint32_t", "ack", "cumulative ack: next frame sequence number expected from dst" },
    { "uint16_t", "flags", "1: an ack-only frame (not sequenced, never acknowledged); 2: to a group id, unsequenced; "
      .. "4: an ack drawn by a gap (fast retransmit counts these); 8: the last frame of a held send, "
      .. "ack it at once; 32768 is never sent: it marks a kept copy whose payload is the user's (a pointer after it)" },
    { "uint32_t", "crc", "CRC32C of the header (this field and the seal fields sealed after it "
      .. "as 0) and payload" },
  },
  pointcuts = { "init", "fini", "send_frame", "after_send", "recv_frame", "poll", "seal", "nic_rx" },
  -- cooperation (docs/internals.md, "How protocols cooperate")
  seal_field = "crc",
  member_fields = { "seq", "ack" },
  -- holds_sends: a frame of a longer message is kept as a reference, its send held to its ack;
  -- tx_crc: the CRC of such a frame rides its Tx DMA (hooks.h, REFERENCES)
  provides = { "exactly_once", "integrity", "holds_sends", "tx_crc" },
  -- a protocol that declares switches may turn it off per peer once it is quiet (tx_quiet)
  switchable = { quiet = "lc_reliability_tx_quiet" },
  -- at a receiver, per peer: 2 explicit acks unread; a go-back resends the window, and silence
  -- a few single frames (hooks.h, SILENCE)
  peer_frames = { ctrl = 2, resend_window = "LC_RELIABILITY_W",
    resend_extra = "LC_RELIABILITY_SILENT_RESENDS" },
  stats = {
    { "rel_retransmits", "frames sent again (timeout or fast retransmit)" },
    { "rel_timeouts", "retransmission timer expiries" },
    { "rel_crc_drops", "frames dropped on a CRC mismatch" },
    { "rel_dup_drops", "duplicate frames dropped" },
    { "rel_ooo_drops", "frames ahead of a gap dropped" },
    { "rel_acks_sent", "explicit ack frames sent" },
    { "rel_peers_dead", "peers given up after max_retries" },
  },
  requires = {},
  conflicts = {},
  sources = { "reliability.c" },
}
