-- SPDX-License-Identifier: MIT
-- The pointcut table: the one source of truth for every place where the
-- baseline pipeline calls the composite protocol.  The generator (gen/) reads
-- it to emit the composite functions, the dummy stubs of unselected protocols,
-- the zero-cost reference macros and the scaffold of a new protocol.
--
-- Columns:
--   name     pointcut name; the composite is lc_pc_<name>(), a protocol's hook
--            is lc_<protocol>_<name>()
--   ret      "lc_verdict" | "int" | "void"
--   combine  how the composite folds the protocols' results:
--            "verdict"  call in composition order, stop at the first verdict
--                       other than LC_CONTINUE and return it
--            "verdict_reverse"  the same in reverse composition order: a frame
--                       goes DOWN the stack on send (the last protocol fills
--                       its fields first, the lowest seals the header last, and a
--                       protocol that says LC_RETRY does so before the lower
--                       ones commit anything) and UP the stack on receive
--            "status"   call in composition order, stop at the first non-zero
--                       (negative lc_err) and return it
--            "all"      call every protocol in composition order
--            "reverse"  call every protocol in reverse composition order
--   side     "host" (framework/), "nic" (the MCP in nic/; a protocol's
--            nic_hooks.h) or "launcher" (launcher/, before the nodes start;
--            a protocol's launcher_hooks.h)
--   neutral  the result of a protocol that does nothing here (the generated
--            dummies, the zero-cost reference and the m4 scaffold's stubs all
--            take it from this column); none for "void"
--   params   list of { C type, name }
--   help     one line: when the pipeline calls it and what it is for
return {
  { name = "init", ret = "int", combine = "status", neutral = "0", side = "host",
    params = { { "struct lc_node *", "node" } },
    help = "the node opens, after the NIC is attached; set up per-peer state; "
        .. "return 0 or a negative lc_err to refuse the open" },
  { name = "fini", ret = "void", combine = "reverse", side = "host",
    params = { { "struct lc_node *", "node" } },
    help = "the node closes, before the NIC is detached; release state" },
  { name = "send_msg", ret = "lc_verdict", combine = "verdict", neutral = "LC_CONTINUE", side = "host",
    params = { { "struct lc_node *", "node" }, { "struct lc_sreq *", "req" } },
    help = "a message enters send, before it is split into frames; "
        .. "LC_RETRY keeps it queued (e.g. no credit yet), LC_CONSUMED takes it over" },
  { name = "send_frame", ret = "lc_verdict", combine = "verdict_reverse", neutral = "LC_CONTINUE", side = "host",
    params = { { "struct lc_node *", "node" }, { "struct lc_frame_hdr *", "hdr" },
               { "const void *", "payload" } },
    help = "a frame header is being filled (payload is the frame's data in host "
        .. "memory); set sequence numbers, CRC, piggybacked acks and credits" },
  { name = "after_send", ret = "void", combine = "all", side = "host",
    params = { { "struct lc_node *", "node" }, { "const struct lc_frame_hdr *", "hdr" },
               { "const void *", "payload" } },
    help = "right after the doorbell for a frame; keep a copy, arm a timer" },
  { name = "recv_frame", ret = "lc_verdict", combine = "verdict", neutral = "LC_CONTINUE", side = "host",
    params = { { "struct lc_node *", "node" }, { "struct lc_frame_hdr *", "hdr" },
               { "void *", "payload" } },
    help = "a frame reached host staging, before it is accepted; check CRC, drop "
        .. "duplicates, ack, return credits; LC_DROP discards it, LC_CONSUMED keeps it" },
  { name = "deliver_msg", ret = "lc_verdict", combine = "verdict", neutral = "LC_CONTINUE", side = "host",
    params = { { "struct lc_node *", "node" }, { "struct lc_rmsg *", "msg" } },
    help = "a whole message is assembled, before it completes the receive; "
        .. "a protocol that moves data on its own, forwarding" },
  { name = "match_announced", ret = "void", combine = "all", side = "host",
    params = { { "struct lc_node *", "node" }, { "struct lc_rmsg *", "msg" } },
    help = "an announced message (its first frame had LC_FF_ANNOUNCE and no payload) met its "
        .. "receive, at its arrival or when the receive was posted later: msg->data and msg->cap "
        .. "are the receive's buffer; the protocol that announced it fetches its data there and "
        .. "completes it (lc_proto_rmsg_done)" },
  { name = "poll", ret = "void", combine = "all", side = "host",
    params = { { "struct lc_node *", "node" }, { "uint64_t", "now_ns" } },
    help = "every progress step, with the current monotonic time; timers" },
  { name = "nic_tx", ret = "lc_verdict", combine = "verdict", neutral = "LC_CONTINUE", side = "nic",
    params = { { "struct lc_nic *", "nic" }, { "struct lc_frame_hdr *", "hdr" } },
    help = "the MCP is about to inject a frame from the Send Ring into the network "
        .. "(payload follows hdr); NIC-side replication; LC_DROP discards it; runs in "
        .. "Net-Send (in thread mode possibly at the same time as nic_rx)" },
  { name = "nic_rx", ret = "lc_verdict", combine = "verdict", neutral = "LC_CONTINUE", side = "nic",
    params = { { "struct lc_nic *", "nic" }, { "struct lc_frame_hdr *", "hdr" } },
    help = "the MCP took a frame off the network into the Receive Ring (payload "
        .. "follows hdr); NIC-level acks, spanning-tree forwarding; LC_DROP discards it; "
        .. "runs in Net-Recv (in thread mode possibly at the same time as nic_tx)" },
  { name = "seal", ret = "void", combine = "reverse", side = "nic",
    params = { { "struct lc_frame_hdr *", "hdr" } },
    help = "every field of a frame is final but the seal fields (registry seal_field): "
        .. "compute them (CRCs) over the frame, whose payload follows hdr; the MCP "
        .. "calls it for each stamped copy of a replicated frame (in Net-Send), a "
        .. "protocol for a kept copy it changed; the lowest protocol seals last" },
  { name = "job_init", ret = "int", combine = "status", neutral = "0", side = "launcher",
    params = { { "const char *", "job" }, { "const struct lc_nic_geom *", "g" },
               { "char *", "err" }, { "size_t", "errlen" } },
    help = "the launcher made job segment job (geometry g) and the nodes have not "
        .. "started: set up what the config declares for the whole job (e.g. static "
        .. "groups); 0, or a negative lc_err with a message in err[errlen]" },
}
