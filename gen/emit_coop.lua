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

local function caps_section(m, protos, body)
  local known, have = {}, {}
  for _, p in ipairs(common.registered_in_order(protos)) do
    for _, cap in ipairs(p.provides or {}) do known[cap] = true end
  end
  for _, p in ipairs(m.protocols) do
    for _, cap in ipairs(p.proto.provides or {}) do have[cap] = p.name end
  end
  body[#body + 1] = "/* Capabilities (registry provides): 1 when a composed protocol provides it. */"
  for _, cap in ipairs(util.sorted_keys(known)) do
    body[#body + 1] = string.format("#define LC_PC_%s %d%s", cap:upper(), have[cap] and 1 or 0,
      have[cap] and ("   /* " .. have[cap] .. " */") or "")
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

function M.emit_coop(m, protos)
  local body = { "#include <stdint.h>", "", "#include \"lc_config.h\"", "#include \"lc_frame_hdr.h\"", "" }
  stamp_section(m, body)
  seal_section(m, body)
  caps_section(m, protos, body)
  peer_frames_section(m, body)
  job_nodes_section(m, body)
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
