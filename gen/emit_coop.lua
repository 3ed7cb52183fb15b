-- SPDX-License-Identifier: MIT
-- Emit the code of the registry's cooperation declarations (docs/internals.md, "How protocols
-- cooperate"), so that no protocol names another:
--   lc_coop.h         stamp tables (member_fields), seal masks (seal_field), capabilities
--                     (provides), the frames per peer the composed protocols add (peer_frames)
--   lc_proto_stats.h  the counters every registered protocol declares (stats), public
--   lc_proto_api.h    includes the public header of each composed protocol that has one (api)
local common = require("emit_common")
local util = require("util")

local M = {}

-- Byte mask (bit i: header byte i) of header field f.
local function bytes_mask(f)
  return ((1 << f.size) - 1) << f.offset
end

local function stamp_section(m, body)
  local s = m.stamp
  common.add(body, [[
/*
 * Stamp tables (registry member_fields): the fields each member's copy of a
 * replicated frame carries its own value of.  The host fills the table of
 * the frame's Send Ring slot (lc_proto_stamps) in send_frame: the protocol
 * that replicates names the members, each protocol writes its own fields;
 * the MCP applies each stamp to the copy and seals it (lc_pc_seal).
 */]])
  if not s then
    common.add(body, "/* LC_STAMPED is 0 in this config: no stamp tables. */\n")
    return
  end
  local members = {}
  for _, f in ipairs(s.fields) do members[#members + 1] = string.format("\t%s %s;", f.ctype, f.cname) end
  common.add(body, "struct lc_stamp {\n\tuint16_t member;    /* the node this copy goes to (its dst) */\n"
    .. table.concat(members, "\n") .. (#members > 0 and "\n" or "") .. "};\n")
  common.add(body, [[
struct lc_stamps {
	uint32_t n;         /* members in m[], in increasing node order */
	uint32_t pad[3];
	struct lc_stamp m[LC_STAMP_MAX_MEMBERS];
};
]])
  body[#body + 1] = string.format("_Static_assert(sizeof(struct lc_stamp) == %d, \"gen/model.lua: the stamp layout\");",
    s.bytes)
  body[#body + 1] = "_Static_assert(sizeof(struct lc_stamps) == LC_NIC_STAMP_BYTES,"
  body[#body + 1] = "\t       \"the stamp table is the size the generator gave its SRAM area\");"
  body[#body + 1] = ""
  local xs = { "#define LC_STAMP_FIELDS(X)" }
  for _, f in ipairs(s.fields) do xs[#xs + 1] = "X(" .. f.cname .. ")" end
  if #xs == 1 then xs[1] = xs[1] .. " /* none */" end
  body[#body + 1] = "/* X(field): the member fields, each a member of struct lc_stamp and of the header. */"
  body[#body + 1] = table.concat(xs, " ")
  body[#body + 1] = ""
  body[#body + 1] = "/* The copy of a replicated frame for stamp s: its dst and every member field. */"
  body[#body + 1] = "static inline void lc_stamp_apply(struct lc_frame_hdr *hdr, const struct lc_stamp *s)"
  body[#body + 1] = "{"
  body[#body + 1] = "\thdr->dst = s->member;"
  for _, f in ipairs(s.fields) do
    body[#body + 1] = string.format("\thdr->%s = s->%s;", f.cname, f.cname)
  end
  body[#body + 1] = "}"
  body[#body + 1] = ""
end

local function seal_section(m, body)
  local fields = {}
  for _, f in ipairs(m.hdr_fields) do fields[f.name] = f end
  common.add(body, [[
/*
 * Seal fields (registry seal_field): seal runs in reverse composition order,
 * so a protocol's seal covers the fields of the protocols above it and takes
 * as 0 the seal fields of those below it, which seal after it.
 * LC_HDR_SEALED_AFTER_<P>: byte mask (bit i: header byte i) of those fields.
 */]])
  local all = 0
  for _, p in ipairs(m.protocols) do
    if p.proto.seal_field then all = all | bytes_mask(fields[p.name .. "_" .. p.proto.seal_field]) end
  end
  body[#body + 1] = string.format("#define LC_HDR_SEAL_MASK 0x%xull   /* every seal field */", all)
  for i, p in ipairs(m.protocols) do
    if p.proto.seal_field then
      local mask = 0
      for j = 1, i - 1 do
        local q = m.protocols[j].proto
        if q.seal_field then mask = mask | bytes_mask(fields[q.name .. "_" .. q.seal_field]) end
      end
      body[#body + 1] = string.format("#define LC_HDR_SEALED_AFTER_%s 0x%xull", p.name:upper(), mask)
    end
  end
  body[#body + 1] = ""
end

-- Every capability a registered protocol provides (a set): each config defines them all.
local function known_caps(protos)
  local known = {}
  for _, p in ipairs(common.registered_in_order(protos)) do
    for _, cap in ipairs(p.provides or {}) do known[cap] = true end
  end
  return known
end

local function caps_section(m, protos, body)
  local known, have = known_caps(protos), {}
  for _, p in ipairs(m.protocols) do
    for _, cap in ipairs(p.proto.provides or {}) do
      have[cap] = have[cap] and (have[cap] .. ", " .. p.name) or p.name
    end
  end
  -- a capability held only by protocols a composed switches protocol may turn off per frame
  -- (switchable): provided for the frames that carry their bit, not for every frame
  local switched, fixed = {}, {}
  for _, p in ipairs(m.switch and m.protocols or {}) do
    for _, cap in ipairs(p.proto.provides or {}) do
      if p.proto.switchable then switched[cap] = true else fixed[cap] = true end
    end
  end
  body[#body + 1] = "/*"
  body[#body + 1] = " * Capabilities (registry provides): LC_PC_<CAP> 1 when a composed protocol"
  body[#body + 1] = " * provides it; LC_PC_<CAP>_ALWAYS 1 when it holds for every frame, 0 when"
  body[#body + 1] = " * only switchable protocols provide it and a composed protocol switches them"
  body[#body + 1] = " * per frame (switches): a protocol that relies on it for every frame tests _ALWAYS."
  body[#body + 1] = " */"
  for _, cap in ipairs(util.sorted_keys(known)) do
    body[#body + 1] = string.format("#define LC_PC_%s %d%s", cap:upper(), have[cap] and 1 or 0,
      have[cap] and ("   /* " .. have[cap] .. " */") or "")
    local always = have[cap] and not (switched[cap] and not fixed[cap])
    body[#body + 1] = string.format("#define LC_PC_%s_ALWAYS %d%s", cap:upper(), always and 1 or 0,
      (have[cap] and not always) and "   /* switched per frame */" or "")
  end
  body[#body + 1] = ""
end

local function peer_frames_section(m, body)
  local ctrl, win, extra = { "0u" }, { "0u" }, { "0u" }
  for _, p in ipairs(m.protocols) do
    local pf = p.proto.peer_frames
    if pf then
      if pf.ctrl then ctrl[#ctrl + 1] = tostring(pf.ctrl) .. "u" end
      if pf.resend_window then win[#win + 1] = "(unsigned)(" .. pf.resend_window .. ")" end
      if pf.resend_extra then extra[#extra + 1] = "(unsigned)(" .. pf.resend_extra .. ")" end
    end
  end
  common.add(body, [[
/*
 * Frames per peer the composed protocols may add to a receiver's ring beyond
 * the data (registry peer_frames; expressions in a protocol's own macros, so
 * use them where the composite is included): control frames unread at once,
 * the unacknowledged frames one retransmission round sends again, and the
 * single retransmissions beyond it.
 */]])
  body[#body + 1] = "#define LC_PC_PEER_CTRL_FRAMES (" .. table.concat(ctrl, " + ") .. ")"
  body[#body + 1] = "#define LC_PC_PEER_RESEND_WINDOW (" .. table.concat(win, " + ") .. ")"
  body[#body + 1] = "#define LC_PC_PEER_RESEND_EXTRA (" .. table.concat(extra, " + ") .. ")"
  body[#body + 1] = ""
end

-- The fewest nodes a job of this config can have (registry job_nodes: a parameter listing node
-- ids, e.g. static groups, that every job must hold): 1 + the largest id, at least 1.
local function job_nodes_section(m, body)
  local n, who = 1, nil
  for _, p in ipairs(m.protocols) do
    for _, ps in ipairs(p.proto.job_nodes and p.params or {}) do
      for _, list in ipairs(ps.name == p.proto.job_nodes and ps.value or {}) do
        for _, id in ipairs(list) do
          if id + 1 > n then n, who = id + 1, p.name .. "." .. ps.name end
        end
      end
    end
  end
  body[#body + 1] = "/* The fewest nodes a job may have: node ids the composed protocols name (registry job_nodes). */"
  body[#body + 1] = string.format("#define LC_PC_MIN_NODES %d%s", n, who and ("   /* " .. who .. " */") or "")
  body[#body + 1] = ""
end

local function switch_section(m, body)
  common.add(body, [[
/*
 * Run-time switches (registry switches, switchable; docs/internals.md,
 * "Switching protocols at run time"): one composed protocol carries in every
 * frame a flag byte and its check byte, one bit per composed switchable
 * protocol; the composites call a switchable protocol's frame hooks only for
 * frames whose bit is set.  A damaged pair (the check is not lc_switch_chk of
 * the flags) switches every one on, so the frame meets every check the
 * config composes.
 * LC_SWITCHABLE_PROTOCOLS(X): X(name, bit) in composition order.
 */]])
  local sw = m.switch
  if not sw then
    body[#body + 1] = "#define LC_SWITCH 0"
    body[#body + 1] = "#define LC_SWITCHABLE 0u"
    body[#body + 1] = "#define LC_SWITCHABLE_PROTOCOLS(X) /* none */"
    body[#body + 1] = ""
    return
  end
  local all, xs = 0, {}
  body[#body + 1] = "#define LC_SWITCH 1   /* " .. sw.owner .. " */"
  for _, p in ipairs(sw.members) do
    body[#body + 1] = string.format("#define LC_SWITCH_BIT_%s 0x%xu", p.name:upper(), p.bit)
    all = all | p.bit
    xs[#xs + 1] = string.format("X(%s, 0x%xu)", p.name, p.bit)
  end
  body[#body + 1] = string.format("#define LC_SWITCHABLE 0x%xu", all)
  body[#body + 1] = "#define LC_SWITCHABLE_PROTOCOLS(X) " .. (#xs > 0 and table.concat(xs, " ") or "/* none */")
  body[#body + 1] = ""
  -- the check byte: CRC-8 (polynomial 0x07) of the flags, inverted (a zeroed header is damaged);
  -- flags and check form a code of minimum distance 4, so 1 to 3 flipped bits of the pair show
  local tab = {}
  for v = 0, 255 do
    local c = v
    for _ = 1, 8 do c = (c & 0x80 ~= 0) and (((c << 1) ~ 0x07) & 0xff) or ((c << 1) & 0xff) end
    tab[#tab + 1] = string.format("0x%02x", c ~ 0xff)
  end
  body[#body + 1] = "/* The check byte of each flag byte: CRC-8 (x^8+x^2+x+1) inverted; distance 4. */"
  body[#body + 1] = "static const uint8_t lc_switch_chk[256] = {"
  for i = 1, 256, 16 do
    body[#body + 1] = "\t" .. table.concat(tab, ", ", i, i + 15) .. ","
  end
  body[#body + 1] = "};"
  body[#body + 1] = ""
  body[#body + 1] = "/* The switches a frame carries: its flags, or every one when the pair is damaged. */"
  body[#body + 1] = "static inline unsigned lc_switch_flags(const struct lc_frame_hdr *hdr)"
  body[#body + 1] = "{"
  body[#body + 1] = string.format("\treturn hdr->%s == lc_switch_chk[hdr->%s] ? hdr->%s & LC_SWITCHABLE : LC_SWITCHABLE;",
    sw.check, sw.flags, sw.flags)
  body[#body + 1] = "}"
  body[#body + 1] = ""
  body[#body + 1] = "/* Write the switches of a frame being sent (the protocol that declares them). */"
  body[#body + 1] = "static inline void lc_switch_set(struct lc_frame_hdr *hdr, unsigned on)"
  body[#body + 1] = "{"
  body[#body + 1] = string.format("\thdr->%s = (uint8_t)on;", sw.flags)
  body[#body + 1] = string.format("\thdr->%s = lc_switch_chk[(uint8_t)on];", sw.check)
  body[#body + 1] = "}"
  body[#body + 1] = ""
end

-- Per frame: whether a capability holds for this frame (after switch_section: lc_switch_flags).
local function frame_caps_section(m, protos, body)
  local known, fixed, bits, bit_of = known_caps(protos), {}, {}, {}
  for _, p in ipairs(m.switch and m.switch.members or {}) do bit_of[p.name] = p.bit end
  for _, p in ipairs(m.protocols) do
    for _, cap in ipairs(p.proto.provides or {}) do
      if bit_of[p.name] then bits[cap] = (bits[cap] or 0) | bit_of[p.name] else fixed[cap] = true end
    end
  end
  common.add(body, [[
/*
 * LC_PC_<CAP>_FRAME(hdr): the capability holds for this received frame -- 1
 * when it holds for every frame, 0 when no composed protocol provides it,
 * else whether the frame carries the switch of a protocol that provides it
 * (such a protocol acted on it: the composites test the same bits).
 */]])
  for _, cap in ipairs(util.sorted_keys(known)) do
    local e
    if fixed[cap] then e = "((void)(hdr), 1)"
    elseif bits[cap] then e = string.format("((lc_switch_flags(hdr) & 0x%xu) != 0)", bits[cap])
    else e = "((void)(hdr), 0)" end
    body[#body + 1] = string.format("#define LC_PC_%s_FRAME(hdr) %s", cap:upper(), e)
  end
  body[#body + 1] = ""
end

function M.emit_coop(m, protos)
  local body = { "#include <stdint.h>", "", "#include \"lc_config.h\"", "#include \"lc_frame_hdr.h\"", "" }
  stamp_section(m, body)
  seal_section(m, body)
  caps_section(m, protos, body)
  peer_frames_section(m, body)
  job_nodes_section(m, body)
  switch_section(m, body)
  frame_caps_section(m, protos, body)
  return common.header(m, "lc_coop.h",
    "How the composed protocols cooperate: code from their registry declarations.", body)
end

function M.emit_stats(m, protos)
  local lines = { "#define LC_PROTO_STAT_LIST(X)" }
  for _, p in ipairs(common.registered_in_order(protos)) do
    for _, st in ipairs(p.stats or {}) do
      lines[#lines + 1] = string.format("\tX(%s, \"%s: %s\")", st[1], p.name, st[2]:gsub("\"", "'"))
    end
  end
  if #lines == 1 then lines[1] = lines[1] .. " /* none */" end
  for i = 1, #lines - 1 do lines[i] = lines[i] .. " \\" end
  local body = {}
  common.add(body, [[
/*
 * Counters of the protocols (registry stats), kept in the host area like the
 * pipeline's: every registered protocol's, so each config has the same
 * counters (zero when the protocol is not composed).  X(name, meaning).
 */]])
  for _, l in ipairs(lines) do body[#body + 1] = l end
  return common.header(m, "lc_proto_stats.h", "The protocols' counters (part of comm.h).", body)
end

function M.emit_api(m)
  local body = { "/* The public API of each composed protocol that declares one (registry api). */" }
  for _, p in ipairs(m.protocols) do
    if p.proto.api then body[#body + 1] = "#include \"" .. p.name .. "/" .. p.proto.api .. "\"" end
  end
  return common.header(m, "lc_proto_api.h", "The composed protocols' public API (part of comm.h).", body)
end

return M
