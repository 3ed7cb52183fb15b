-- SPDX-License-Identifier: MIT
-- libcomm generator: configs/<name>.lua + protocol registry -> build/<name>/include headers.
--
-- parse (load data, resolve extends) -> check (schema, registry) -> model
-- (layouts, fingerprint) -> one emitter per output file.  Nothing is written
-- when a diagnostic is found; a file is rewritten only when its text changed.

local script = arg and arg[0] or "gen/main.lua"
local gen_dir = script:match("^(.*)/[^/]*$") or "."
package.path = gen_dir .. "/?.lua;" .. package.path
-- The repo root is the parent of gen/ (gen_dir "gen" -> ".", "/x/gen" -> "/x", "." -> "..").
local root = gen_dir:match("^(.*)/[^/]*$") or (gen_dir == "." and ".." or ".")

local util = require("util")
local parse = require("parse")
local check = require("check")
local model = require("model")
local schema = require("schema")

local USAGE = [[
usage: lua5.4 gen/main.lua --config configs/<name>.lua [--out DIR] [--json FILE]
                           [--with-protocol P] [--check-only] [--print KEY]
       lua5.4 gen/main.lua --reference FILE
       lua5.4 gen/main.lua --list-configs
options: --configs-dir DIR (default configs), --protocols-dir DIR (default protocols)
exit: 0 ok, 1 diagnostic, 2 usage, 3 (--check-only, --print) the config selects an
      unimplemented protocol]]

local function usage(msg)
  io.stderr:write("gen: " .. msg .. "\n" .. USAGE .. "\n")
  os.exit(2)
end

local opts = {}
do
  local takes = { ["--config"] = true, ["--out"] = true, ["--json"] = true,
    ["--with-protocol"] = true, ["--print"] = true, ["--reference"] = true,
    ["--configs-dir"] = true, ["--protocols-dir"] = true }
  local flags = { ["--check-only"] = true, ["--list-configs"] = true, ["--help"] = true }
  local i = 1
  while i <= #arg do
    local a = arg[i]
    if takes[a] then
      if not arg[i + 1] then usage(a .. " needs a value") end
      opts[a:sub(3)] = arg[i + 1]
      i = i + 2
    elseif flags[a] then
      opts[a:sub(3)] = true
      i = i + 1
    else
      usage("unknown argument '" .. a .. "'")
    end
  end
end
if opts.help then print(USAGE) os.exit(0) end

-- Paths as shown in diagnostics: relative to the working directory when below it.
local cwd = os.getenv("PWD")
do
  local p = io.popen("pwd")
  if p then cwd = p:read("l") or cwd p:close() end
end
local function shown(path)
  if path:sub(1, 1) == "/" and cwd and path:sub(1, #cwd + 1) == cwd .. "/" then
    return path:sub(#cwd + 2)
  end
  return (path:gsub("^%./", ""))
end

local configs_dir = opts["configs-dir"] or (root .. "/configs")
local protocols_dir = opts["protocols-dir"] or (root .. "/protocols")
local ctx = {
  configs_dir = configs_dir, shown_dir = shown(configs_dir),
  protocols_dir = protocols_dir, shown_protocols_dir = shown(protocols_dir),
}

local function fail(diags, code)
  for _, d in ipairs(diags) do io.stderr:write(parse.format_diag(d) .. "\n") end
  os.exit(code or 1)
end

local function load_table(path, what)
  local t, err = parse.load_data(path, shown(path), what)
  if not t then fail({ err }) end
  return t
end

local pointcuts = load_table(root .. "/framework/pointcuts.lua", "pointcuts")
local frame = load_table(root .. "/framework/frame.lua", "frame")

if opts["list-configs"] then
  for _, n in ipairs(util.list_dir(configs_dir) or {}) do
    local name = n:match("^(.+)%.lua$")
    if name then print(name) end
  end
  os.exit(0)
end

local reg, rdiags = parse.load_registry(ctx)
if #rdiags > 0 then fail(rdiags) end
local protos, pdiags = check.registry(reg, pointcuts)
if #pdiags > 0 then fail(pdiags) end

if opts.reference then
  local ref = require("emit_reference")
  util.write_if_changed(opts.reference, ref.emit(schema, protos, pointcuts))
  os.exit(0)
end

if not opts.config then usage("--config is required") end
local cpath = opts.config
if not cpath:match("%.lua$") and not cpath:find("/") then
  cpath = configs_dir .. "/" .. cpath .. ".lua"
end
local cshown = shown(cpath)
local name = cshown:match("([^/]+)%.lua$") or cshown

local resolved, origins, sources = parse.load_config(ctx, cpath, cshown)
if not resolved then fail({ origins }) end
if opts["with-protocol"] then
  local p = opts["with-protocol"]
  local list = {}
  for _, x in ipairs(type(resolved.protocols) == "table" and resolved.protocols or {}) do
    if x ~= p then list[#list + 1] = x end
  end
  list[#list + 1] = p
  resolved.protocols = list
  name = name .. "+" .. p
end

local c, cdiags = check.config({ resolved = resolved, origins = origins, sources = sources,
  main = cshown, added = opts["with-protocol"] }, schema, protos)
local function diag_exit(diags)
  local only_unimpl = true
  for _, d in ipairs(diags) do only_unimpl = only_unimpl and d.kind == "unimplemented" end
  fail(diags, (only_unimpl and (opts["check-only"] or opts.print)) and 3 or 1)
end
if #cdiags > 0 then diag_exit(cdiags) end

local m, mdiags = model.build(c, frame, protos, name)
if #mdiags > 0 then fail(mdiags) end
model.finish(m)

-- Generated C names must not collide (e.g. protocol a_b's c and protocol a's b_c).
local emit_config = require("emit_config")
local macros = emit_config.macros(m, schema, protos)
do
  local seen, diags = {}, {}
  for _, d in ipairs(macros) do
    local prev = seen[d.name]
    if prev then
      local src, param
      for _, p in pairs(protos) do
        if p.file == d.owner then src = p.src end
      end
      param = d.comment:match("^[%w_]+%.([%w_]+)")
      diags[#diags + 1] = parse.diag(d.owner, parse.find_line(src, "params", param), d.comment,
        "macro " .. d.name .. " is also generated for " .. prev.comment
        .. (prev.owner ~= d.owner and (" (" .. prev.owner .. ")") or ""))
    end
    seen[d.name] = d
  end
  if #diags > 0 then fail(diags) end
end

if opts.print then
  local key = opts.print
  local v
  if key == "protocols" then
    local names = {}
    for _, p in ipairs(m.protocols) do names[#names + 1] = p.name end
    v = table.concat(names, " ")
  elseif key == "name" then
    v = m.name
  elseif key == "fingerprint" then
    v = string.format("0x%016x", m.fingerprint)
  elseif key == "api" then
    -- the public headers to install beside comm.h (registry api), as paths under protocols/
    local s = {}
    for _, p in ipairs(m.protocols) do
      if p.proto.api then s[#s + 1] = p.name .. "/" .. p.proto.api end
    end
    v = table.concat(s, " ")
  elseif key == "sources" then
    local s = {}
    for _, p in ipairs(m.protocols) do
      for _, f in ipairs(p.proto.sources) do s[#s + 1] = p.name .. "/" .. f end
    end
    v = table.concat(s, " ")
  elseif c[key] ~= nil then
    v = tostring(c[key])
  else
    local proto, param = key:match("^([%w_]+)%.([%w_]+)$")
    for _, p in ipairs(m.protocols) do
      if p.name == proto then
        for _, ps in ipairs(p.params) do
          if ps.name == param then v = tostring(ps.value) end
        end
      end
    end
  end
  if v == nil then usage("--print: unknown key '" .. key .. "'") end
  print(v)
  os.exit(0)
end

if opts["check-only"] then os.exit(0) end
if not opts.out and not opts.json then usage("--out DIR or --json FILE is needed") end

-- Emit everything in memory first, then write what changed.
local outputs = {}
if opts.out then
  local ec = require("emit_composite")
  outputs[#outputs + 1] = { "lc_config.h", emit_config.emit(m, macros) }
  outputs[#outputs + 1] = { "lc_protocols.h", require("emit_protocols").emit(m, protos) }
  outputs[#outputs + 1] = { "lc_frame_hdr.h", require("emit_frame_hdr").emit(m) }
  outputs[#outputs + 1] = { "lc_proto_state.h", require("emit_proto_state").emit(m) }
  outputs[#outputs + 1] = { "lc_composite_host.h", ec.emit(m, protos, pointcuts, "host") }
  outputs[#outputs + 1] = { "lc_composite_nic.h", ec.emit(m, protos, pointcuts, "nic") }
  outputs[#outputs + 1] = { "lc_composite_launcher.h", ec.emit(m, protos, pointcuts, "launcher") }
  local coop = require("emit_coop")
  outputs[#outputs + 1] = { "lc_coop.h", coop.emit_coop(m, protos) }
  outputs[#outputs + 1] = { "lc_proto_stats.h", coop.emit_stats(m, protos) }
  outputs[#outputs + 1] = { "lc_proto_api.h", coop.emit_api(m) }
  for _, o in ipairs(outputs) do o[1] = opts.out .. "/" .. o[1] end
end
if opts.json then
  outputs[#outputs + 1] = { opts.json, require("emit_json").emit(m) }
end
for _, o in ipairs(outputs) do util.write_if_changed(o[1], o[2]) end
os.exit(0)
