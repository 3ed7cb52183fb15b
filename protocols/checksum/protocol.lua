-- SPDX-License-Identifier: MIT
-- Registry entry of checksum: CRC32C of each frame, damaged frames dropped on receive.
return {
  name = "checksum",
  order = 10,
  implemented = true,
  help = "CRC32C in every frame header; a frame whose CRC does not match is dropped on receive",
  order_why = "first, so that every later protocol sees only intact frames (none acknowledges "
    .. "or counts a damaged one); its seal runs last, over every other field",
  params = {
    { name = "cover", type = "string", default = "frame", values = { "header", "frame" },
      help = "what the CRC32C covers: \"header\" (the frame header only, cheap, payload "
        .. "unprotected) or \"frame\" (header and payload)" },
  },
  header = {
    { "uint32_t", "crc", "CRC32C of the header (with this field 0) and, with cover = \"frame\", the payload" },
  },
  pointcuts = { "send_frame", "recv_frame", "seal", "nic_rx" },
  -- the CRC of each copy of a replicated frame is computed again by the MCP (lc_pc_seal)
  seal_field = "crc",
  -- every header it accepts is the header sent (framework/pipeline.c: what may be parked)
  -- tx_crc: a covered payload's CRC rides the frame's Tx DMA (hooks.h)
  provides = { "integrity", "tx_crc" },
  -- a protocol that declares switches may turn it on and off per frame (no state to drain)
  switchable = {},
  requires = {},
  conflicts = {},
  sources = {},
}
