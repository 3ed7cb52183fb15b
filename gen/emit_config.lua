-- SPDX-License-Identifier: MIT
-- Emit lc_config.h: every constant of the resolved config.
local common = require("emit_common")
local util = require("util")
local model = require("model")

local M = {}

-- The macros of lc_config.h in order: { name, value, comment, owner }.
-- owner names where the macro comes from (for collision reports).
function M.macros(m, schema, protos)
  local c = m.config
  local out = {}
  local function def(name, value, comment, owner)
    out[#out + 1] = { name = name, value = value, comment = comment, owner = owner or "gen/schema.lua" }
  end
  def("LC_CONFIG_NAME", '"' .. m.name .. '"', "configs/<name>.lua this build was made from")
  def("LC_CONFIG_FINGERPRINT", string.format("0x%016xULL", m.fingerprint),
    "FNV-1a 64 of the canonical resolved config (config.json without its name)")
  for _, s in ipairs(schema) do
    if s.macro then def(s.macro, tostring(c[s.key]), s.help) end
    for _, v in ipairs(s.members and s.values or {}) do
      def(s.members .. "_" .. v:upper(), c[s.key] == v and "1" or "0",
        s.key .. " = \"" .. v .. "\" selected")
    end
  end
  def("LC_NIC_MCP_THREAD", c["nic.mcp"] == "thread" and "1" or "0", "1: the MCP runs as its own thread")
  def("LC_NIC_CTRL_BYTES", tostring(m.sram[1].bytes), "SRAM control block (ring indices, one 64-byte line each)")
  def("LC_NIC_DMA_BLOCK_BYTES", "32", "bytes of one DMA chain block")
  def("LC_NIC_FIFO_ENTRY_BYTES", "16", "bytes of one doorbell/completion FIFO entry")
  def("LC_NIC_REG_ENTRY_BYTES", tostring(model.REG_ENTRY_BYTES), "bytes of one memory registration")
  def("LC_NIC_RECV_WORD_BYTES", tostring(m.recv_word_bytes),
    "bytes of a Receive Ring slot's publication word (and, timed, its arrival time), before its frame")
  def("LC_NET_TIMED", (c["network.link_mbps"] > 0 or c["network.hop_ns"] > 0) and "1" or "0",
    "1: the timed network (network.link_mbps, network.hop_ns) is compiled in")
  local stamp
  for _, l in ipairs(m.sram) do
    if l.name == "tx_fifo" then
      def("LC_NIC_DOORBELL_BYTES", tostring(l.bytes),
        "the endpoint's doorbell region (FIFO indices, then the doorbell FIFO): whole pages at LC_NIC_OFF_TX_FIFO")
      def("LC_NIC_DOORBELL_HEAD_BYTES", tostring(model.DOORBELL_HEAD_BYTES),
        "the doorbell region's FIFO indices, before its entries")
    end
    def("LC_NIC_OFF_" .. l.name:upper(), tostring(l.offset), "SRAM offset of " .. l.name)
    if l.name == "stamp" then stamp = l end
  end
  if not stamp then
    def("LC_NIC_OFF_STAMP", "0", "SRAM offset of stamp (0: no stamp tables)")
  end
  def("LC_NIC_STAMP_BYTES", tostring(stamp and stamp.elem or 0),
    "bytes of one stamp table of a replicated frame (one per Send Ring slot; 0: none; lc_coop.h)")
  def("LC_STAMPED", m.stamp and "1" or "0",
    "1: frames the NIC replicates carry a per-member stamp table (lc_coop.h)")
  def("LC_STAMP_MAX_MEMBERS", tostring(m.stamp and m.stamp.max_members or 0),
    "members (the sender aside) one stamp table holds")
  def("LC_NIC_GROUP_ENTRIES", tostring(m.group_entries),
    "entries of the group table in the job segment (registry nic_groups; 0: none)")
  def("LC_NIC_SRAM_USED_BYTES", tostring(m.sram_used), "SRAM bytes the layout takes")
  def("LC_HOST_STAGING_SLOTS", tostring(m.staging_slots), "host staging slots (power of two)")
  def("LC_FRAME_HDR_BYTES", tostring(m.hdr_bytes), "sizeof(struct lc_frame_hdr)")
  local active = {}
  for _, p in ipairs(m.protocols) do active[p.name] = p end
  for _, name in ipairs(util.sorted_keys(protos)) do
    def("LC_PROTO_" .. name:upper(), active[name] and "1" or "0", "protocol " .. name .. " is composed",
      protos[name].file)
  end
  for _, p in ipairs(m.protocols) do
    local owner = p.proto.file
    for _, ps in ipairs(p.params) do
      local base = "LC_" .. p.name:upper() .. "_" .. ps.name:upper()
      if ps.type == "integer" then
        def(base, tostring(ps.value), p.name .. "." .. ps.name, owner)
      elseif ps.type == "boolean" then
        def(base, ps.value and "1" or "0", p.name .. "." .. ps.name, owner)
      elseif ps.type == "int_lists" then
        -- an X-macro list, one X(index, n, members...) per inner list, and the count
        local xs = {}
        for i, l in ipairs(ps.value) do
          local ns = {}
          for _, n in ipairs(l) do ns[#ns + 1] = tostring(n) end
          xs[#xs + 1] = string.format("X(%d, %d, %s)", i - 1, #l, table.concat(ns, ", "))
        end
        def(base .. "_COUNT", tostring(#ps.value), p.name .. "." .. ps.name .. ": number of lists", owner)
        def(base .. "(X)", #xs > 0 and table.concat(xs, " ") or "/* none */",
          p.name .. "." .. ps.name .. ": X(index, count, members...) per list", owner)
      else
        def(base, '"' .. ps.value .. '"', p.name .. "." .. ps.name, owner)
        for _, v in ipairs(ps.values) do
          def(base .. "_" .. v:upper(), v == ps.value and "1" or "0",
            p.name .. "." .. ps.name .. " == \"" .. v .. "\"", owner)
        end
      end
    end
  end
  return out
end

function M.emit(m, macros)
  local body = {}
  local width = 0
  for _, d in ipairs(macros) do width = math.max(width, #d.name) end
  for _, d in ipairs(macros) do
    body[#body + 1] = "/* " .. common.comment(d.comment) .. " */"
    body[#body + 1] = "#define " .. d.name .. (" "):rep(width - #d.name + 1) .. d.value
  end
  return common.header(m, "lc_config.h", "Constants of the resolved configuration.", body)
end

return M
