-- SPDX-License-Identifier: MIT
-- The baseline frame header: the one source of truth for its fields.  The
-- generator lays out struct lc_frame_hdr as these fields followed by the
-- header fields of the active protocols (composition order), then pads the
-- struct to its widest field (gen/model.lua: a header of 32-bit fields may be
-- 4 bytes past a multiple of 8; the Receive Ring's publication word then takes
-- 4 bytes, not 8, and the payload still starts 8-aligned in the ring).
--
-- Columns: { C type, name, one line of help }, and optionally alias = { name,
-- help }: a second name for the same bytes (an anonymous union member of the
-- same type), for a field whose value is fixed on some frames so that those
-- frames can carry something else there.  Types are fixed-width integers only
-- (uint8_t, uint16_t, uint32_t, uint64_t); a field is placed at the next
-- offset aligned to its size.
--
-- The match word (comm.h, lc_isend_match) travels once per message, on its
-- first frame, where `off` is always 0: its low half rides in `off` (alias
-- match_lo), its high half in match_hi.  So the header grows by 4 bytes, not
-- 8: the baseline's is 28 bytes, and with its 4-byte Receive Ring word a frame
-- of up to 32 payload bytes fills one cache line of the ring (a single 32-bit
-- CRC or 16-bit credit field makes it 32, and the word 8).  docs/internals.md, "The matching envelope".
return {
  { "uint16_t", "magic",   "LC_FRAME_MAGIC: a frame of another job or config is dropped" },
  { "uint8_t",  "type",    "enum lc_frame_type: data or a protocol's control frame" },
  { "uint8_t",  "flags",   "LC_FF_* bits (first / last frame of a message)" },
  { "uint16_t", "src",     "sending node id" },
  { "uint16_t", "dst",     "destination node id (or group id with LC_FF_GROUP)" },
  { "uint32_t", "len",     "payload bytes in this frame (0 .. mtu)" },
  { "uint32_t", "seq",     "message sequence number per (src, dst) pair",
    alias = { "rkey", "RDMA frame (LC_FT_RDMA): the handle of the registered region it writes" } },
  { "uint32_t", "off",     "byte offset of this frame's payload in its message (not first frames; "
    .. "RDMA frames: in the registered region)",
    alias = { "match_lo", "first frame (LC_FF_FIRST, offset 0): low 32 bits of the match word" } },
  { "uint32_t", "msg_len", "total bytes of the message" },
  { "uint32_t", "match_hi", "first frame: high 32 bits of the match word (other frames: as sent, unread)" },
}
