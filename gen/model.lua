-- SPDX-License-Identifier: MIT
-- Model: the resolved config with its SRAM layout, frame-header layout, staging and fingerprint.
local util = require("util")
local parse = require("parse")
local check = require("check")

local M = {}

M.CTRL_BYTES = 4096
M.DMA_BLOCK_BYTES = 32
M.FIFO_ENTRY_BYTES = 16
M.REG_ENTRY_BYTES = 32      -- one memory registration (nic/nic_impl.h, struct lc_nic_reg)
-- A Receive Ring slot's publication word before its frame (a lap tag and the wire byte count,
-- 32 bits, written by the sending NIC after the frame: nic/nic_impl.h, lc_recv_publish_word).
-- It takes 4 bytes when the header is 4 bytes past a multiple of 8 (the baseline's 28), so
-- that the payload starts 8-aligned and a frame of up to 64 - 4 - 28 = 32 payload bytes crosses
-- as one cache line; else 8 (4 of them unused), for the same reason.
M.RECV_WORD_BYTES = 8
M.RECV_WORD_BYTES_SHORT = 4
-- on a timed network (network.link_mbps or network.hop_ns) the word is followed by the frame's
-- modelled arrival time (nic/nic_impl.h, lc_recv_arrival) at byte 8: 16 bytes before the frame
M.RECV_WORD_BYTES_TIMED = 16

-- the Receive Ring word's bytes for a resolved config c whose frame header is hdr_bytes long
function M.recv_word_bytes(c, hdr_bytes)
  if (c["network.link_mbps"] or 0) > 0 or (c["network.hop_ns"] or 0) > 0 then
    return M.RECV_WORD_BYTES_TIMED
  end
  if hdr_bytes % 8 == 4 then
    return M.RECV_WORD_BYTES_SHORT
  end
  return M.RECV_WORD_BYTES
end
M.SRAM_ALIGN = 64
-- The doorbell region of the endpoint (virtual interface) is a page of its own
-- (nic/nic_impl.h, struct lc_nic_doorbell): the host's and the doorbell
-- service's FIFO indices, one line each, then the doorbell FIFO's entries.  A
-- page, so that every other process of the job maps it without access (the
-- operating system's page protection keeps a process from ringing another
-- endpoint's doorbell).
M.PAGE_BYTES = 4096
M.DOORBELL_HEAD_BYTES = 128

-- The SRAM buffers in layout order: name, config key, bytes per element.
local function sram_buffers(c)
  return {
    { name = "send_ring", count = c["nic.send_ring"], elem = c["nic.slot_bytes"] },
    { name = "recv_ring", count = c["nic.recv_ring"], elem = c["nic.slot_bytes"] },
    { name = "tx_dma", count = c["nic.tx_dma"], elem = M.DMA_BLOCK_BYTES },
    { name = "rx_dma", count = c["nic.rx_dma"], elem = M.DMA_BLOCK_BYTES },
    { name = "tx_fifo", count = c["nic.tx_fifo"], elem = M.FIFO_ENTRY_BYTES,
      head = M.DOORBELL_HEAD_BYTES, page = true },
    { name = "rx_fifo", count = c["nic.rx_fifo"], elem = M.FIFO_ENTRY_BYTES },
    { name = "reg", count = c["nic.reg_entries"], elem = M.REG_ENTRY_BYTES },
  }
end

-- Stamp tables (registry member_fields, seal_field, nic_groups.replicate; docs/internals.md "How
-- protocols cooperate"): a frame the NIC replicates to the members of a group leaves the host
-- once, but each member's copy needs its own values of the header fields the active protocols
-- declare per member (member_fields), and its seal fields computed again.  So, when an active
-- protocol has the NIC replicate its groups and some active protocol declares such fields, the
-- host writes with each such frame a table in NIC SRAM -- one per Send Ring slot: a 16-byte
-- head, then one stamp per member (the member's node id, then the member fields) -- and the MCP
-- stamps each copy from it (lc_coop.h: struct lc_stamp, lc_stamp_apply).
M.STAMP_HEAD_BYTES = 16

-- The active protocol whose nic_groups.replicate matches its parameters (nil if none).
local function replicator(c)
  for _, a in ipairs(c.active or {}) do
    local g = a.proto.nic_groups
    if g and g.replicate then
      local all = true
      for k, v in pairs(g.replicate) do all = all and a.params[k] == v end
      if all then return a end
    end
  end
  return nil
end

-- The stamp of one member: { fields = { { ctype, cname, size, offset } }, bytes, max_members },
-- or nil when no table is needed.
local function stamp_layout(c, hdr_by_name)
  local rep = replicator(c)
  if not rep then return nil end
  local fields, off, align, sealed = {}, 2, 2, false
  for _, a in ipairs(c.active or {}) do
    sealed = sealed or a.proto.seal_field ~= nil
    for _, f in ipairs(a.proto.member_fields or {}) do
      local h = hdr_by_name[a.proto.name .. "_" .. f]
      off = util.align(off, h.size)
      fields[#fields + 1] = { ctype = h.ctype, cname = h.name, size = h.size, offset = off }
      off = off + h.size
      if h.size > align then align = h.size end
    end
  end
  if #fields == 0 and not sealed then return nil end
  return { fields = fields, bytes = util.align(off, align),
    max_members = rep.params[rep.proto.nic_groups.max_members] }
end

local function floor_pow2(n)
  local p = 1
  while p * 2 <= n do p = p * 2 end
  return p
end

-- Build the model.  c: checked config; frame: framework/frame.lua;
-- protos: registry by name; name: config name.
function M.build(c, frame, protos, name)
  local diags = {}
  local function err(dotted, reason)
    local file, line = c.where(dotted)
    diags[#diags + 1] = parse.diag(file, line, dotted, reason)
  end
  local m = { name = name, config = c, protocols = {} }

  -- Frame header: baseline fields, then active protocols' fields.
  local fields, cnames = {}, {}
  local off, align = 0, 1
  local function add(ctype, cname, help, owner, owner_file, owner_src, raw, alias)
    local size = check.CTYPES[ctype]
    off = util.align(off, size)
    align = math.max(align, size)
    if cnames[cname] then
      local prev = cnames[cname]
      diags[#diags + 1] = parse.diag(owner_file, parse.find_line(owner_src, "header", raw), "header",
        string.format("field '%s' of %s and field '%s' of %s both become the C name "
          .. "lc_frame_hdr.%s", raw, owner, prev.raw, prev.owner, cname))
    end
    local f = { ctype = ctype, name = cname, size = size, offset = off, help = help,
      owner = owner, raw = raw }
    cnames[cname] = f
    if alias then
      -- framework/frame.lua: a second name of the same bytes (an anonymous union member)
      if cnames[alias[1]] then
        diags[#diags + 1] = parse.diag(owner_file, 1, "header",
          string.format("alias '%s' of field '%s' is already a field name", alias[1], cname))
      end
      f.alias, f.alias_help = alias[1], alias[2] or ""
      cnames[alias[1]] = f
    end
    fields[#fields + 1] = f
    off = off + size
  end
  for _, f in ipairs(frame) do
    add(f[1], f[2], f[3], "the baseline header", "framework/frame.lua", nil, f[2], f.alias)
  end
  for _, a in ipairs(c.active) do
    local p = a.proto
    for _, h in ipairs(p.header) do
      add(h[1], p.name .. "_" .. h[2], h[3] or "", "protocol '" .. p.name .. "'", p.file, p.src, h[2])
    end
    local params = {}
    for _, ps in ipairs(p.params) do
      params[#params + 1] = { name = ps.name, type = ps.type, value = a.params[ps.name],
        values = ps.values }
    end
    m.protocols[#m.protocols + 1] = { name = p.name, order = p.order, proto = p, params = params }
  end
  m.hdr_fields = fields
  -- the struct's own size: its fields end padded to its widest field (at least 4 bytes: the
  -- baseline's 32-bit fields), so a header of 32-bit fields may end 4 bytes past a multiple of 8
  -- and the Receive Ring word fills those 4 (recv_word_bytes)
  m.hdr_bytes = util.align(off, align)

  -- Run-time switches (registry switches, switchable; docs/internals.md "Switching protocols at
  -- run time"): the one composed protocol that declares switches carries, in each frame, a flag
  -- byte with a bit for every composed switchable protocol, in composition order.
  for _, p in ipairs(m.protocols) do
    if p.proto.switches then
      if m.switch then
        diags[#diags + 1] = parse.diag(p.proto.file, parse.find_line(p.proto.src, "switches"),
          "switches", string.format("protocols '%s' and '%s' both declare the frame's switch flags",
            m.switch.owner, p.name))
      end
      m.switch = { owner = p.name, flags = p.name .. "_" .. p.proto.switches.flags,
        check = p.name .. "_" .. p.proto.switches.check, members = {} }
    end
  end
  if m.switch then
    for _, p in ipairs(m.protocols) do
      if p.proto.switchable then
        local bit = 1 << #m.switch.members
        m.switch.members[#m.switch.members + 1] = { name = p.name, bit = bit, quiet = p.proto.switchable.quiet }
      end
    end
    if #m.switch.members > 8 then
      err("protocols", string.format("%d switchable protocols composed with %s: its flag byte holds 8",
        #m.switch.members, m.switch.owner))
    end
  end

  -- Frame limits.
  local mtu, slot = c.mtu, c["nic.slot_bytes"]
  if slot % M.SRAM_ALIGN ~= 0 then
    err("nic.slot_bytes", string.format("%d is not a multiple of %d (slots are cache-line aligned)",
      slot, M.SRAM_ALIGN))
  end
  m.recv_word_bytes = M.recv_word_bytes(c, m.hdr_bytes)
  if m.recv_word_bytes + mtu + m.hdr_bytes > slot then
    err("mtu", string.format("MTU larger than a ring slot: Receive Ring word %d + mtu %d + frame "
      .. "header %d = %d > nic.slot_bytes %d", m.recv_word_bytes, mtu, m.hdr_bytes,
      m.recv_word_bytes + mtu + m.hdr_bytes, slot))
  end
  if c.pio_threshold > mtu then
    err("pio_threshold", string.format("%d is larger than mtu %d", c.pio_threshold, mtu))
  end

  -- SRAM layout and budget.
  local layout = { { name = "ctrl", offset = 0, bytes = M.CTRL_BYTES } }
  local pos = M.CTRL_BYTES
  local bufs = sram_buffers(c)
  local by_name = {}
  for _, f in ipairs(fields) do by_name[f.name] = f end
  m.stamp = stamp_layout(c, by_name)
  if m.stamp then
    bufs[#bufs + 1] = { name = "stamp", count = c["nic.send_ring"],
      elem = M.STAMP_HEAD_BYTES + m.stamp.bytes * m.stamp.max_members }
  end
  -- the group table in the job segment: entries of the one protocol that declares nic_groups
  m.group_entries = 0
  for _, a in ipairs(c.active) do
    local g = a.proto.nic_groups
    if g then
      if m.group_owner then
        diags[#diags + 1] = parse.diag(a.proto.file, parse.find_line(a.proto.src, "nic_groups"),
          "nic_groups", string.format("protocols '%s' and '%s' both declare the NIC's group table",
            m.group_owner, a.proto.name))
      end
      m.group_owner = a.proto.name
      m.group_entries = a.params[g.entries]
    end
  end
  for _, b in ipairs(bufs) do
    pos = util.align(pos, b.page and M.PAGE_BYTES or M.SRAM_ALIGN)
    local bytes = (b.head or 0) + b.count * b.elem
    if b.page then bytes = util.align(bytes, M.PAGE_BYTES) end
    layout[#layout + 1] = { name = b.name, offset = pos, bytes = bytes, count = b.count, elem = b.elem,
      page = b.page }
    pos = pos + bytes
  end
  m.sram = layout
  m.sram_used = pos
  if pos > c["nic.sram_bytes"] then
    local parts = {}
    for _, l in ipairs(layout) do
      if l.count then
        parts[#parts + 1] = string.format("%s %d x %d%s = %d", l.name, l.count, l.elem,
          l.page and " in whole pages" or "", l.bytes)
      else
        parts[#parts + 1] = string.format("%s %d", l.name, l.bytes)
      end
    end
    err("nic.sram_bytes", string.format("the NIC buffers do not fit: %s; total %d > sram %d "
      .. "(%d bytes over)", table.concat(parts, ", "), pos, c["nic.sram_bytes"],
      pos - c["nic.sram_bytes"]))
  end

  -- Host staging.
  local raw_slots = c["host.staging_bytes"] // slot
  if raw_slots < 2 then
    err("host.staging_bytes", string.format("staging too small: %d bytes hold %d slot(s) of "
      .. "nic.slot_bytes %d; at least 2 are needed (%d bytes)", c["host.staging_bytes"],
      raw_slots, slot, 2 * slot))
  else
    m.staging_slots = floor_pow2(raw_slots)
  end
  return m, diags
end

-- The resolved config as a JSON-ready table (fingerprint excluded).
function M.describe(m)
  local c = m.config
  local cfg = {}
  for k, v in pairs(c) do
    if type(k) == "string" and k ~= "active" and k ~= "where" and k ~= "protocols" then
      local top, sub = k:match("^([^.]+)%.(.+)$")
      if top then
        cfg[top] = cfg[top] or {}
        cfg[top][sub] = v
      else
        cfg[k] = v
      end
    end
  end
  local protos = util.array()
  for _, p in ipairs(m.protocols) do
    local params = {}
    for _, ps in ipairs(p.params) do params[ps.name] = ps.value end
    local caps = util.array()
    for _, cap in ipairs(p.proto.provides or {}) do caps[#caps + 1] = cap end
    -- provides: the registry's capabilities (tools/costmodel/advise.py reads what a config offers)
    protos[#protos + 1] = { name = p.name, order = p.order, params = params, provides = caps }
    cfg[p.name] = params
  end
  local names = util.array()
  for _, p in ipairs(m.protocols) do names[#names + 1] = p.name end
  cfg.protocols = names
  local sram = util.array()
  for _, l in ipairs(m.sram) do
    sram[#sram + 1] = { name = l.name, offset = l.offset, bytes = l.bytes, count = l.count,
      elem_bytes = l.elem }
  end
  local hdr = util.array()
  for _, f in ipairs(m.hdr_fields) do
    hdr[#hdr + 1] = { name = f.name, type = f.ctype, offset = f.offset, bytes = f.size,
      alias = f.alias }
  end
  return {
    config = cfg,
    active_protocols = protos,
    sram = { layout = sram, used_bytes = m.sram_used, size_bytes = c["nic.sram_bytes"],
      free_bytes = c["nic.sram_bytes"] - m.sram_used, recv_word_bytes = m.recv_word_bytes },
    frame_header = { fields = hdr, bytes = m.hdr_bytes },
    host = { staging_slots = m.staging_slots },
  }
end

-- Fingerprint: FNV-1a 64 of the canonical JSON of everything but the name.
function M.finish(m)
  m.description = M.describe(m)
  m.canonical = util.json(m.description)
  m.fingerprint = util.fnv1a64(m.canonical)
  local f = m.fingerprint
  local magic = (f ~ (f >> 16) ~ (f >> 32) ~ (f >> 48)) & 0xffff
  if magic == 0 then magic = 0x1c01 end
  m.magic = magic
  return m
end

return M
