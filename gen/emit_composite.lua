-- SPDX-License-Identifier: MIT
-- Emit lc_composite_host.h and lc_composite_nic.h: hooks, dummies and the composite pointcuts.
local common = require("emit_common")
local util = require("util")

local M = {}

local function fn_head(pc, name)
  return string.format("static inline %s %s(%s)", common.RET_TYPE[pc.ret], name, common.params(pc))
end

local function void_params(body, pc)
  for _, x in ipairs(pc.params) do body[#body + 1] = "\t(void)" .. x[2] .. ";" end
end

-- gate(p, pc): the C condition under which the composite calls p's hook of pc, or nil (always)
local function composite(body, pc, order, gate)
  body[#body + 1] = "/* " .. pc.name .. " (" .. pc.combine .. "): " .. common.comment(pc.help) .. " */"
  body[#body + 1] = fn_head(pc, "lc_pc_" .. pc.name)
  body[#body + 1] = "{"
  local args = common.args(pc)
  local seq = {}
  for _, p in ipairs(order) do seq[#seq + 1] = p end
  if pc.combine == "reverse" or pc.combine == "verdict_reverse" then
    for i = 1, #seq // 2 do seq[i], seq[#seq + 1 - i] = seq[#seq + 1 - i], seq[i] end
  end
  if #seq == 0 then void_params(body, pc) end
  if pc.combine == "verdict" or pc.combine == "verdict_reverse" or pc.combine == "status" then
    local var, ctype, ok = "v", "lc_verdict", common.neutral(pc)
    if pc.combine == "status" then var, ctype = "rc", "int" end
    if pc.ret ~= (pc.combine == "status" and "int" or "lc_verdict") then
      error("pointcut " .. pc.name .. ": combine " .. pc.combine .. " does not fit ret " .. pc.ret)
    end
    if #seq > 0 then body[#body + 1] = "\t" .. ctype .. " " .. var .. ";" end
    if #seq > 0 then body[#body + 1] = "" end
    for _, p in ipairs(seq) do
      local cond, t = gate(p, pc), "\t"
      if cond then
        body[#body + 1] = "\tif (" .. cond .. ") {"
        t = "\t\t"
      end
      body[#body + 1] = string.format("%s%s = lc_%s_%s(%s);", t, var, p.name, pc.name, args)
      body[#body + 1] = string.format("%sif (%s != %s)", t, var, ok)
      body[#body + 1] = t .. "\treturn " .. var .. ";"
      if cond then body[#body + 1] = "\t}" end
    end
    body[#body + 1] = "\treturn " .. ok .. ";"
  elseif pc.combine == "all" or pc.combine == "reverse" then
    if pc.ret ~= "void" then
      error("pointcut " .. pc.name .. ": combine " .. pc.combine .. " needs ret void")
    end
    for _, p in ipairs(seq) do
      local cond = gate(p, pc)
      if cond then body[#body + 1] = "\tif (" .. cond .. ")" end
      body[#body + 1] = string.format("%slc_%s_%s(%s);", cond and "\t\t" or "\t", p.name, pc.name, args)
    end
  else
    error("pointcut " .. pc.name .. ": unknown combine '" .. tostring(pc.combine) .. "'")
  end
  body[#body + 1] = "}"
  body[#body + 1] = ""
end

local function dummy(body, pc, p)
  body[#body + 1] = fn_head(pc, "lc_" .. p.name .. "_" .. pc.name)
  body[#body + 1] = "{"
  void_params(body, pc)
  if pc.ret ~= "void" then body[#body + 1] = "\treturn " .. common.neutral(pc) .. ";" end
  body[#body + 1] = "}"
  body[#body + 1] = ""
end

-- Per side: the protocol file that holds its hooks, the headers the composite needs, its purpose.
M.SIDES = {
  host = { hooks = "hooks.h", includes = { "lc_proto.h" },
    purpose = "The composite protocol at the host pipeline's pointcuts." },
  nic = { hooks = "nic_hooks.h", includes = { "lc_frame_hdr.h" },
    purpose = "The composite protocol at the MCP's pointcuts (NIC side)." },
  launcher = { hooks = "launcher_hooks.h", includes = {},
    purpose = "The composite protocol at the launcher's pointcuts (before the nodes start)." },
}

-- side: a key of M.SIDES.
function M.emit(m, protos, pointcuts, side)
  local sd = M.SIDES[side]
  local pcs = {}
  for _, pc in ipairs(pointcuts) do
    if pc.side == side then pcs[#pcs + 1] = pc end
  end
  local order = common.registered_in_order(protos)
  local active = {}
  for _, p in ipairs(m.protocols) do
    active[p.name] = {}
    for _, pc in ipairs(p.proto.pointcuts) do active[p.name][pc] = true end
  end
  local body = { "#include <stddef.h>", "#include <stdint.h>", "", "#include \"lc_verdict.h\"" }
  for _, h in ipairs(sd.includes) do body[#body + 1] = "#include \"" .. h .. "\"" end
  -- run-time switches (lc_coop.h): a switchable protocol's frame hooks run for frames whose bit is set
  local switched = {}
  if m.switch then
    body[#body + 1] = "#include \"lc_coop.h\""
    for _, p in ipairs(m.switch.members) do switched[p.name] = p end
  end
  local function gate(p, pc)
    if not (switched[p.name] and active[p.name] and active[p.name][pc.name]) then return nil end
    for _, x in ipairs(pc.params) do
      if x[2] == "hdr" then return "lc_switch_flags(hdr) & LC_SWITCH_BIT_" .. p.name:upper() end
    end
    return nil
  end
  body[#body + 1] = ""
  for _, tag in ipairs(common.struct_tags(pcs)) do
    body[#body + 1] = "struct " .. tag .. ";"
  end
  body[#body + 1] = ""
  -- a hook may call a composite (e.g. the MCP's replication seals each copy): declared first
  if #pcs > 0 then
    body[#body + 1] = "/* The composite pointcuts, defined below: a hook may call one of another side's or its own. */"
    for _, pc in ipairs(pcs) do body[#body + 1] = fn_head(pc, "lc_pc_" .. pc.name) .. ";" end
    body[#body + 1] = ""
  end
  if m.switch and side == "host" then
    body[#body + 1] = "/* 1 when no switchable protocol of mask awaits anything of peer (registry switchable.quiet). */"
    body[#body + 1] = "static inline int lc_switch_quiet(const struct lc_node *node, uint32_t peer, unsigned mask);"
    body[#body + 1] = ""
  end
  local any = false
  for _, p in ipairs(m.protocols) do
    local uses = side == "host"
    for _, pc in ipairs(pcs) do uses = uses or active[p.name][pc.name] end
    if uses then
      body[#body + 1] = "#include \"" .. p.name .. "/" .. sd.hooks .. "\""
      any = true
    end
  end
  if any then body[#body + 1] = "" end

  if m.switch and side == "host" then
    body[#body + 1] = "static inline int lc_switch_quiet(const struct lc_node *node, uint32_t peer, unsigned mask)"
    body[#body + 1] = "{"
    local any_q = false
    for _, p in ipairs(m.switch.members) do
      if p.quiet then
        body[#body + 1] = string.format("\tif ((mask & LC_SWITCH_BIT_%s) && !%s(node, peer))", p.name:upper(), p.quiet)
        body[#body + 1] = "\t\treturn 0;"
        any_q = true
      end
    end
    if not any_q then body[#body + 1] = "\t(void)node;\n\t(void)peer;\n\t(void)mask;" end
    body[#body + 1] = "\treturn 1;"
    body[#body + 1] = "}"
    body[#body + 1] = ""
  end
  body[#body + 1] = "/* Dummies: every (protocol, pointcut) pair no composed protocol implements. */"
  body[#body + 1] = ""
  for _, p in ipairs(order) do
    for _, pc in ipairs(pcs) do
      if not (active[p.name] and active[p.name][pc.name]) then dummy(body, pc, p) end
    end
  end

  body[#body + 1] = "/* The composite protocol: one function per pointcut, protocols in composition order. */"
  body[#body + 1] = ""
  for _, pc in ipairs(pcs) do composite(body, pc, order, gate) end

  -- work the framework does only for a pointcut's hooks (the poll pointcut's clock) is left
  -- out where no composed protocol implements it
  body[#body + 1] = "/* 1 when a composed protocol implements the pointcut, else 0. */"
  for _, pc in ipairs(pcs) do
    local used = 0
    for _, p in ipairs(order) do
      if active[p.name] and active[p.name][pc.name] then used = 1 end
    end
    body[#body + 1] = "#define LC_PC_USED_" .. pc.name .. " " .. used
  end
  body[#body + 1] = ""
  body[#body + 1] = "/* Each pointcut's value with every call compiled out (LC_ZEROCOST_REFERENCE). */"
  for _, pc in ipairs(pcs) do
    body[#body + 1] = "#define LC_PC_REF_" .. pc.name .. " " .. common.neutral(pc)
  end
  return common.header(m, "lc_composite_" .. side .. ".h", sd.purpose, body)
end

return M
