-- SPDX-License-Identifier: MIT
-- Emit lc_frame_hdr.h: struct lc_frame_hdr laid out from framework/frame.lua and the active protocols.
local common = require("emit_common")

local M = {}

function M.emit(m)
  local body = {
    "#include <stddef.h>",
    "#include <stdint.h>",
    "",
    "#include \"lc_config.h\"",
    "",
    "/* Identifies frames of this build; derived from LC_CONFIG_FINGERPRINT, never 0. */",
    string.format("#define LC_FRAME_MAGIC 0x%04xu", m.magic),
    "",
    "/*",
    " * DATA: a frame of a message; CTRL: a protocol's control frame; FRAMEWORK: a control",
    " * frame of the framework itself (synchronous-send acks: framework/pipeline.c), which",
    " * the protocols carry like any control frame that is not theirs.  RDMA: a frame whose",
    " * payload the receiving NIC writes straight into registered memory (rkey, off: nic.h,",
    " * \"registered memory and RDMA\"); its header still reaches the host.",
    " */",
    "enum lc_frame_type { LC_FT_DATA = 0, LC_FT_CTRL = 1, LC_FT_FRAMEWORK = 2, LC_FT_RDMA = 3 };",
    "",
    "/* lc_frame_hdr.flags bits */",
    "#define LC_FF_FIRST 1",
    "#define LC_FF_LAST 2",
    "#define LC_FF_GROUP 4",
    "#define LC_FF_SYNC 8   /* first frame of a synchronous send: ack when matched */",
    "#define LC_FF_ANNOUNCE 16   /* first frame of an announced message: its payload is seq as sent",
    "                            * (LC_ANNOUNCE_BYTES); a protocol (capability announce) moves its",
    "                            * data and completes it */",
    "#define LC_ANNOUNCE_BYTES 4",
    "#define LC_FF_PUT 32   /* RDMA frame of a put (lc_iput): the framework's own; match_hi is the",
    "                       * put's id, msg_len the region offset where it ends */",
    "#define LC_FF_REFUSED 64   /* set by the receiving NIC on an RDMA frame it refused (nothing was",
    "                           * placed): staged whole, so the host's protocols account for it",
    "                           * (a sequence number), then the framework drops it */",
    "",
    "struct lc_frame_hdr {",
  }
  local width = 0
  for _, f in ipairs(m.hdr_fields) do width = math.max(width, #f.ctype) end
  local pad_at = m.hdr_fields[#m.hdr_fields]
  local used = pad_at.offset + pad_at.size
  local prev_end = 0
  local npad = 0
  for _, f in ipairs(m.hdr_fields) do
    if f.offset > prev_end then
      body[#body + 1] = string.format("\tuint8_t%slc_pad%d[%d];", (" "):rep(width - 7 + 1),
        npad, f.offset - prev_end)
      npad = npad + 1
    end
    if f.alias then
      -- two names of the same bytes: an anonymous union (C11)
      body[#body + 1] = "\tunion {"
      body[#body + 1] = string.format("\t\t%s %s; /* @%d: %s */", f.ctype, f.name, f.offset,
        common.comment(f.help))
      body[#body + 1] = string.format("\t\t%s %s; /* @%d: %s */", f.ctype, f.alias, f.offset,
        common.comment(f.alias_help))
      body[#body + 1] = "\t};"
    else
      body[#body + 1] = string.format("\t%s%s%s; /* @%d: %s */", f.ctype, (" "):rep(width - #f.ctype + 1),
        f.name, f.offset, common.comment(f.help))
    end
    prev_end = f.offset + f.size
  end
  if m.hdr_bytes > used then
    body[#body + 1] = string.format("\tuint8_t%slc_pad%d[%d]; /* to the widest field's alignment */",
      (" "):rep(width - 7 + 1), npad, m.hdr_bytes - used)
  end
  body[#body + 1] = "};"
  body[#body + 1] = ""
  body[#body + 1] = "_Static_assert(sizeof(struct lc_frame_hdr) == LC_FRAME_HDR_BYTES, "
    .. "\"frame header size\");"
  for _, f in ipairs(m.hdr_fields) do
    body[#body + 1] = string.format("_Static_assert(offsetof(struct lc_frame_hdr, %s) == %d, "
      .. "\"offset of %s\");", f.name, f.offset, f.name)
    if f.alias then
      body[#body + 1] = string.format("_Static_assert(offsetof(struct lc_frame_hdr, %s) == %d, "
        .. "\"offset of %s\");", f.alias, f.offset, f.alias)
    end
  end
  return common.header(m, "lc_frame_hdr.h", "The frame header: baseline fields, then the active protocols' fields.", body)
end

return M
