-- SPDX-License-Identifier: MIT
-- The baseline frame header: the one source of truth for its fields.  The
-- generator lays out struct lc_frame_hdr as these fields followed by the
-- header fields of the active protocols (composition order), then pads the
-- struct to a multiple of 8 bytes.
--
-- Columns: { C type, name, one line of help }.  Types are fixed-width
-- integers only (uint8_t, uint16_t, uint32_t, uint64_t); a field is placed at
-- the next offset aligned to its size.
return {
  { "uint16_t", "magic",   "LC_FRAME_MAGIC: a frame of another job or config is dropped" },
  { "uint8_t",  "type",    "enum lc_frame_type: data or a protocol's control frame" },
  { "uint8_t",  "flags",   "LC_FF_* bits (first / last frame of a message)" },
  { "uint16_t", "src",     "sending node id" },
  { "uint16_t", "dst",     "destination node id (or group id with LC_FF_GROUP)" },
  { "uint32_t", "len",     "payload bytes in this frame (0 .. mtu)" },
  { "uint32_t", "seq",     "message sequence number per (src, dst) pair" },
  { "uint32_t", "off",     "byte offset of this frame's payload in its message" },
  { "uint32_t", "msg_len", "total bytes of the message" },
}
