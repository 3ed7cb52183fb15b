-- SPDX-License-Identifier: MIT
-- Check: the registry entries and a resolved config against gen/schema.lua and the registry.
local util = require("util")
local parse = require("parse")

local M = {}

local CTYPES = { uint8_t = 1, uint16_t = 2, uint32_t = 4, uint64_t = 8 }
M.CTYPES = CTYPES

-- A value as a diagnostic names it: a long string by its start, never an address.
local function describe(v)
  if type(v) == "string" then
    if #v > 40 then return string.format("a string of %d bytes (\"%s...\")", #v, v:sub(1, 32)) end
    return "the string \"" .. v .. "\""
  end
  if type(v) == "number" and math.type(v) == "float" then
    return "the float " .. tostring(v) .. " (write integers, e.g. 1 << 10, not 2^10)"
  end
  if type(v) == "table" then return util.is_list(v) and "a list" or "a table" end
  if type(v) == "number" or type(v) == "boolean" or type(v) == "nil" then
    return "the " .. type(v) .. " " .. tostring(v)
  end
  return "a " .. type(v)
end

-- Check one value against a spec (type, min, max, pow2, values).  Returns a
-- reason or nil.
function M.check_value(spec, v)
  local t = spec.type
  if t == "integer" then
    if math.type(v) ~= "integer" then return "expected an integer, got " .. describe(v) end
    if spec.min and v < spec.min or spec.max and v > spec.max then
      return string.format("%d is out of range %d .. %d", v, spec.min or math.mininteger,
        spec.max or math.maxinteger)
    end
    if spec.pow2 and not util.is_pow2(v) then
      return string.format("%d is not a power of two", v)
    end
  elseif t == "string" then
    if type(v) ~= "string" then return "expected a string, got " .. describe(v) end
    if spec.values then
      for _, x in ipairs(spec.values) do
        if x == v then return nil end
      end
      return "\"" .. v .. "\" is not one of " .. table.concat(spec.values, ", ")
        .. util.did_you_mean(v, spec.values)
    end
  elseif t == "boolean" then
    if type(v) ~= "boolean" then return "expected true or false, got " .. describe(v) end
  elseif t == "int_lists" then
    if type(v) ~= "table" or (next(v) ~= nil and not util.is_list(v)) then
      return "expected a list of integer lists such as { { 0, 1, 2 }, { 1, 3 } }, got " .. describe(v)
    end
    for i, l in ipairs(v) do
      if type(l) ~= "table" or next(l) == nil or not util.is_list(l) then
        return string.format("item %d: expected a non-empty list of integers such as { 0, 1 }, got %s",
          i, type(l) == "table" and "an empty or keyed table" or describe(l))
      end
      local seen = {}
      for j, x in ipairs(l) do
        if math.type(x) ~= "integer" then
          return string.format("item %d, entry %d: expected an integer, got %s", i, j, describe(x))
        end
        if x < (spec.min or 0) or spec.max and x > spec.max then
          return string.format("item %d: %d is out of range %d .. %s", i, x, spec.min or 0,
            spec.max and tostring(spec.max) or "")
        end
        if seen[x] then return string.format("item %d: %d is listed twice", i, x) end
        seen[x] = true
      end
    end
  elseif t == "list" then
    if type(v) ~= "table" or (next(v) ~= nil and not util.is_list(v)) then
      return "expected a list of names such as { \"checksum\" }, got " .. describe(v)
    end
    for i, x in ipairs(v) do
      if type(x) ~= "string" then
        return string.format("item %d: expected a name, got %s", i, describe(x))
      end
    end
  end
  return nil
end

-- Registry --------------------------------------------------------------------

local ENTRY_FIELDS = { "name", "order", "implemented", "help", "order_why", "params", "header",
  "pointcuts", "requires", "conflicts", "sources",
  -- cooperation declarations (docs/internals.md, "How protocols cooperate"): the generator
  -- turns them into code, so no protocol names another
  "stats", "api", "member_fields", "seal_field", "provides", "peer_frames", "nic_groups",
  "job_nodes", "switches", "switchable" }
-- the pointcuts that act on a message, not a frame: a switchable protocol (switched per data
-- frame by the flags of the protocol that declares switches) implements none of them
local MESSAGE_POINTCUTS = { send_msg = true, deliver_msg = true, match_announced = true }
local PARAM_FIELDS = { "name", "type", "default", "min", "max", "pow2", "values", "help",
  -- bounds by other keys (integer parameters): at_most = { KEY, ... }, each a core key
  -- ("mtu", "nic.recv_ring") or another parameter of the protocol, compared with its value as used;
  -- zero_means = KEY: the value 0 stands for that key's value
  "at_most", "zero_means" }

-- A reference of at_most/zero_means: another integer parameter of the same protocol, or else
-- a core key ("mtu", "nic.recv_ring"; the config check says when there is none).
local function is_bound_ref(v, own_param)
  if type(v) ~= "string" or not v:match("^[a-z][a-z0-9_]*$") and not v:match("^[a-z][a-z0-9_]*%.[a-z][a-z0-9_]*$") then
    return false
  end
  return own_param[v] == nil or own_param[v].type == "integer"
end

local function is_ident(s)
  return type(s) == "string" and s:match("^[a-z][a-z0-9_]*$") ~= nil
end

local function is_string_list(v)
  if type(v) ~= "table" then return false end
  if next(v) ~= nil and not util.is_list(v) then return false end
  for _, x in ipairs(v) do
    if type(x) ~= "string" then return false end
  end
  return true
end

-- The cooperation declarations of registry entry e (read from r; params and header already
-- checked): each must name the protocol's own fields and parameters, never another protocol.
function M.coop(r, e, params, header, pc_set, err)
  local own_field, own_param = {}, {}
  for _, h in ipairs(header) do if type(h) == "table" then own_field[h[2] or ""] = h[1] end end
  for _, p in ipairs(params) do if type(p) == "table" and p.name then own_param[p.name] = p end end
  local function only_fields(key, t, allowed)
    for _, k in ipairs(util.sorted_keys(t)) do
      local ok = false
      for _, f in ipairs(allowed) do ok = ok or f == k end
      if not ok then
        err(r, key, "unknown field '" .. tostring(k) .. "' (" .. table.concat(allowed, ", ") .. ")")
      end
    end
  end
  local function a_field(key, f)
    if not own_field[f] then
      err(r, key, "'" .. tostring(f) .. "' is not a header field of this protocol (header)", f)
    end
  end
  if e.stats ~= nil then
    if type(e.stats) ~= "table" or (next(e.stats) ~= nil and not util.is_list(e.stats)) then
      err(r, "stats", "expected a list of { \"name\", \"help\" }, got " .. describe(e.stats))
    else
      for i, st in ipairs(e.stats) do
        if type(st) ~= "table" or not is_ident(st[1]) or type(st[2]) ~= "string" then
          err(r, "stats", string.format("item %d: expected { \"name\", \"help\" } with a C identifier", i))
        end
      end
    end
  end
  if e.api ~= nil and (type(e.api) ~= "string" or not e.api:match("^[a-z][a-z0-9_]*%.h$")) then
    err(r, "api", "expected the file name of a header in the protocol's folder (\"name.h\"), got "
      .. describe(e.api))
  end
  if e.member_fields ~= nil then
    if not is_string_list(e.member_fields) then
      err(r, "member_fields", "expected a list of header field names, got " .. describe(e.member_fields))
    else
      for _, f in ipairs(e.member_fields) do a_field("member_fields", f) end
    end
  end
  if e.seal_field ~= nil then
    if type(e.seal_field) ~= "string" then
      err(r, "seal_field", "expected a header field name, got " .. describe(e.seal_field))
    else
      a_field("seal_field", e.seal_field)
      local seals = false
      for _, pc in ipairs(is_string_list(e.pointcuts) and e.pointcuts or {}) do seals = seals or pc == "seal" end
      if not seals and pc_set.seal then
        err(r, "seal_field", "a protocol with a seal field implements the seal pointcut (pointcuts)")
      end
    end
  end
  if e.provides ~= nil and not (is_string_list(e.provides)) then
    err(r, "provides", "expected a list of capability names, got " .. describe(e.provides))
  end
  for _, cap in ipairs(is_string_list(e.provides) and e.provides or {}) do
    if not is_ident(cap) then err(r, "provides", "capability '" .. cap .. "' is not a C identifier", cap) end
  end
  if e.peer_frames ~= nil then
    local pf = e.peer_frames
    if type(pf) ~= "table" then
      err(r, "peer_frames", "expected { ctrl = N, resend_window = \"C expr\", resend_extra = \"C expr\" }")
    else
      only_fields("peer_frames", pf, { "ctrl", "resend_window", "resend_extra" })
      if pf.ctrl ~= nil and (math.type(pf.ctrl) ~= "integer" or pf.ctrl < 0) then
        err(r, "peer_frames", "ctrl: expected a non-negative integer, got " .. describe(pf.ctrl))
      end
      for _, k in ipairs({ "resend_window", "resend_extra" }) do
        if pf[k] ~= nil and type(pf[k]) ~= "string" then
          err(r, "peer_frames", k .. ": expected a C expression in a string, got " .. describe(pf[k]))
        end
      end
    end
  end
  if e.switches ~= nil then
    if type(e.switches) ~= "table" then
      err(r, "switches", "expected { flags = \"field\", check = \"field\" }, got " .. describe(e.switches))
    else
      only_fields("switches", e.switches, { "flags", "check" })
      for _, k in ipairs({ "flags", "check" }) do
        local f = e.switches[k]
        if type(f) ~= "string" then
          err(r, "switches", k .. ": expected a header field name, got " .. describe(f))
        elseif own_field[f] ~= "uint8_t" then
          err(r, "switches", k .. ": '" .. f .. "' is not a uint8_t header field of this protocol (header)", f)
        end
      end
    end
  end
  if e.switchable ~= nil then
    if type(e.switchable) ~= "table" then
      err(r, "switchable", "expected { } or { quiet = \"C function\" }, got " .. describe(e.switchable))
    else
      only_fields("switchable", e.switchable, { "quiet" })
      local q = e.switchable.quiet
      if q ~= nil and (type(q) ~= "string" or not q:match("^[a-z_][a-z0-9_]*$")) then
        err(r, "switchable", "quiet: expected the name of a C function, got " .. describe(q))
      end
    end
    for _, pc in ipairs(is_string_list(e.pointcuts) and e.pointcuts or {}) do
      if MESSAGE_POINTCUTS[pc] then
        err(r, "switchable", "a switchable protocol is switched frame by frame: it cannot implement "
          .. "the message pointcut " .. pc, pc)
      end
    end
  end
  if e.job_nodes ~= nil then
    local p = own_param[type(e.job_nodes) == "string" and e.job_nodes or ""]
    if not p or p.type ~= "int_lists" then
      err(r, "job_nodes", "'" .. tostring(e.job_nodes) .. "' is not an int_lists parameter of this protocol")
    end
  end
  if e.nic_groups ~= nil then
    local g = e.nic_groups
    if type(g) ~= "table" then
      err(r, "nic_groups", "expected { entries = \"param\", replicate = { param = value }, "
        .. "max_members = \"param\" }")
    else
      only_fields("nic_groups", g, { "entries", "replicate", "max_members" })
      for _, k in ipairs({ "entries", "max_members" }) do
        local p = own_param[g[k] or ""]
        if not p or p.type ~= "integer" then
          err(r, "nic_groups", k .. ": '" .. tostring(g[k]) .. "' is not an integer parameter of this protocol")
        end
      end
      if g.replicate ~= nil then
        if type(g.replicate) ~= "table" then
          err(r, "nic_groups", "replicate: expected { param = value }")
        else
          for _, k in ipairs(util.sorted_keys(g.replicate)) do
            if not own_param[k] then
              err(r, "nic_groups", "replicate: '" .. tostring(k) .. "' is not a parameter of this protocol")
            end
          end
        end
      end
    end
  end
end

-- Validate every registry entry; returns protocols by name (normalized) and diagnostics.
function M.registry(reg, pointcuts)
  local diags, byname, byorder = {}, {}, {}
  local pc_names, pc_set = {}, {}
  for _, pc in ipairs(pointcuts) do
    pc_names[#pc_names + 1] = pc.name
    pc_set[pc.name] = pc
  end
  local function err(r, key, reason, needle)
    diags[#diags + 1] = parse.diag(r.file, parse.find_line(r.src, key:match("^[^.%[]+"), needle),
      key, reason)
  end
  for _, r in ipairs(reg) do
    local e = r.entry
    local n0 = #diags
    for _, k in ipairs(util.sorted_keys(e)) do
      local known = false
      for _, f in ipairs(ENTRY_FIELDS) do known = known or f == k end
      if not known then
        err(r, tostring(k), "unknown registry field" .. util.did_you_mean(tostring(k), ENTRY_FIELDS))
      end
    end
    if not is_ident(e.name) then
      err(r, "name", "must be a C identifier in lower case, got " .. describe(e.name))
    elseif e.name ~= r.folder then
      err(r, "name", "\"" .. e.name .. "\" differs from its folder '" .. r.folder .. "'")
    end
    if math.type(e.order) ~= "integer" or e.order < 0 then
      err(r, "order", "expected a non-negative integer, got " .. describe(e.order))
    elseif byorder[e.order] then
      err(r, "order", string.format("%d is also the order of '%s'; composition order must be total",
        e.order, byorder[e.order]))
    else
      byorder[e.order] = e.name
    end
    if type(e.implemented) ~= "boolean" then
      err(r, "implemented", "expected true or false, got " .. describe(e.implemented))
    end
    for _, f in ipairs({ "help", "order_why" }) do
      if type(e[f]) ~= "string" then err(r, f, "expected a string, got " .. describe(e[f])) end
    end
    for _, f in ipairs({ "requires", "pointcuts", "sources" }) do
      if e[f] ~= nil and not is_string_list(e[f]) then
        err(r, f, "expected a list of strings, got " .. describe(e[f]))
      end
    end
    -- conflicts: names, or { "name", when = { param = value, ... }, why = "..." }
    -- (a conflict only while each listed parameter of this protocol has that value)
    local conflicts = {}
    if e.conflicts ~= nil and (type(e.conflicts) ~= "table" or
        (next(e.conflicts) ~= nil and not util.is_list(e.conflicts))) then
      err(r, "conflicts", "expected a list of names or { \"name\", when = { param = value }, "
        .. "why = \"...\" }, got " .. describe(e.conflicts))
    else
      for i, c in ipairs(e.conflicts or {}) do
        if type(c) == "string" then
          conflicts[#conflicts + 1] = { name = c }
        elseif type(c) ~= "table" or type(c[1]) ~= "string" then
          err(r, "conflicts", string.format("item %d: expected a name or { \"name\", when = { ... }, "
            .. "why = \"...\" }, got %s", i, describe(c)))
        else
          local ok = true
          for _, k in ipairs(util.sorted_keys(c)) do
            if k ~= 1 and k ~= "when" and k ~= "why" then
              err(r, "conflicts", string.format("item %d: unknown field '%s' (when, why)", i, tostring(k)), c[1])
              ok = false
            end
          end
          if c.why ~= nil and type(c.why) ~= "string" then
            err(r, "conflicts", string.format("item %d: why must be a string", i), c[1])
            ok = false
          end
          if c.when ~= nil and (type(c.when) ~= "table" or util.is_list(c.when) and next(c.when) ~= nil) then
            err(r, "conflicts", string.format("item %d: when must be a table of parameter = value", i), c[1])
            ok = false
          elseif c.when then
            for _, k in ipairs(util.sorted_keys(c.when)) do
              local spec
              for _, p in ipairs(type(e.params) == "table" and e.params or {}) do
                if type(p) == "table" and p.name == k then spec = p end
              end
              if not spec then
                err(r, "conflicts", string.format("item %d: when: '%s' is not a parameter of %s", i,
                  tostring(k), tostring(e.name)), c[1])
                ok = false
              else
                local why = M.check_value(spec, c.when[k])
                if why then
                  err(r, "conflicts", string.format("item %d: when: %s: %s", i, k, why), c[1])
                  ok = false
                end
              end
            end
          end
          if ok then conflicts[#conflicts + 1] = { name = c[1], when = c.when, why = c.why } end
        end
      end
    end
    if is_string_list(e.pointcuts) then
      for _, pc in ipairs(e.pointcuts) do
        if not pc_set[pc] then
          err(r, "pointcuts", "unknown pointcut '" .. pc .. "'" .. util.did_you_mean(pc, pc_names), pc)
        end
      end
    end
    local params = e.params or {}
    if type(params) ~= "table" then
      err(r, "params", "expected a list of parameters, got " .. describe(params))
      params = {}
    end
    local pseen = {}
    for i, p in ipairs(params) do
      local key = "params"
      if type(p) ~= "table" then
        err(r, key, string.format("item %d: expected a table, got %s", i, describe(p)))
      else
        local pname = is_ident(p.name) and p.name or ("#" .. i)
        for _, k in ipairs(util.sorted_keys(p)) do
          local known = false
          for _, f in ipairs(PARAM_FIELDS) do known = known or f == k end
          if not known then
            err(r, key, "parameter " .. pname .. ": unknown field '" .. tostring(k) .. "'"
              .. util.did_you_mean(tostring(k), PARAM_FIELDS), p.name)
          end
        end
        if not is_ident(p.name) then
          err(r, key, string.format("item %d: name must be a C identifier, got %s", i, describe(p.name)))
        elseif pseen[p.name] then
          err(r, key, "parameter " .. p.name .. " is declared twice", p.name)
        end
        pseen[pname] = true
        if p.type ~= "integer" and p.type ~= "boolean" and p.type ~= "string" and p.type ~= "int_lists" then
          err(r, key, "parameter " .. pname .. ": type must be integer, boolean, string or int_lists, got "
            .. describe(p.type), p.name)
        elseif p.type == "string" and not (is_string_list(p.values) and #p.values > 0) then
          err(r, key, "parameter " .. pname .. ": a string parameter needs its values", p.name)
        elseif p.type == "string" and p.values then
          for _, v in ipairs(p.values) do
            if not is_ident(v) then
              err(r, key, "parameter " .. pname .. ": value \"" .. v .. "\" is not a C identifier", p.name)
            end
          end
        end
        if p.type == "integer" or p.type == "int_lists" then
          for _, f in ipairs({ "min", "max" }) do
            if p[f] ~= nil and math.type(p[f]) ~= "integer" then
              err(r, key, "parameter " .. pname .. ": " .. f .. " must be an integer", p.name)
            end
          end
        end
        if p.at_most ~= nil or p.zero_means ~= nil then
          local own = {}
          for _, q in ipairs(params) do
            if type(q) == "table" and q.name and q.name ~= p.name then own[q.name] = q end
          end
          local list_ok = type(p.at_most) == "table" and util.is_list(p.at_most)
          if p.type ~= "integer" and not (p.type == "int_lists" and p.zero_means == nil) then
            err(r, key, "parameter " .. pname .. ": at_most bounds integer parameters (an int_lists one: "
              .. "its number of lists) and zero_means integer ones only", p.name)
          elseif p.at_most ~= nil and not list_ok then
            err(r, key, "parameter " .. pname .. ": at_most must be a list of keys such as { \"mtu\" }", p.name)
          else
            for _, b in ipairs(list_ok and p.at_most or {}) do
              if not is_bound_ref(b, own) then
                err(r, key, "parameter " .. pname .. ": at_most: " .. describe(b) .. " is neither a core key "
                  .. "nor another integer parameter of " .. tostring(e.name), p.name)
              end
            end
            if p.zero_means ~= nil and not is_bound_ref(p.zero_means, own) then
              err(r, key, "parameter " .. pname .. ": zero_means: " .. describe(p.zero_means) .. " is neither "
                .. "a core key nor another integer parameter of " .. tostring(e.name), p.name)
            end
          end
        end
        if #diags == n0 then
          local why = M.check_value(p, p.default)
          if why then err(r, key, "parameter " .. pname .. ": default: " .. why, p.name) end
        end
        if type(p.help) ~= "string" then
          err(r, key, "parameter " .. pname .. ": help must be a string", p.name)
        end
      end
    end
    local header = e.header or {}
    if type(header) ~= "table" then
      err(r, "header", "expected a list of { C type, name, help }, got " .. describe(header))
      header = {}
    end
    for i, h in ipairs(header) do
      if type(h) ~= "table" or not CTYPES[h[1]] or not is_ident(h[2]) then
        err(r, "header", string.format("field %d: expected { \"uint8_t\"|\"uint16_t\"|\"uint32_t\""
          .. "|\"uint64_t\", \"name\", \"help\" }", i))
      end
    end
    M.coop(r, e, params, header, pc_set, err)
    if #diags == n0 then
      byname[e.name] = {
        name = e.name, order = e.order, implemented = e.implemented, help = e.help,
        order_why = e.order_why, params = params, header = header,
        pointcuts = e.pointcuts or {}, requires = e.requires or {},
        conflicts = conflicts, sources = e.sources or {},
        stats = e.stats or {}, api = e.api, member_fields = e.member_fields or {},
        seal_field = e.seal_field, provides = e.provides or {}, peer_frames = e.peer_frames,
        nic_groups = e.nic_groups, job_nodes = e.job_nodes,
        switches = e.switches, switchable = e.switchable,
        file = r.file, src = r.src,
      }
    end
  end
  if #diags == 0 then
    for _, name in ipairs(util.sorted_keys(byname)) do
      local p = byname[name]
      for _, f in ipairs({ "requires", "conflicts" }) do
        for _, q in ipairs(p[f]) do
          if type(q) == "table" then q = q.name end
          if not byname[q] then
            diags[#diags + 1] = parse.diag(p.file, parse.find_line(p.src, f, q), f,
              "unknown protocol '" .. q .. "'" .. util.did_you_mean(q, util.sorted_keys(byname)))
          end
        end
      end
    end
  end
  return byname, diags
end

-- Config --------------------------------------------------------------------------

-- cfg: { resolved, origins, sources, main (shown file of the config) }.
-- Returns the checked config (defaults filled, protocols in composition
-- order with their parameters) and diagnostics.
function M.config(cfg, schema, protos)
  local diags = {}
  local function where(dotted, needle)
    local file = cfg.origins[dotted] or cfg.main
    return file, parse.key_line(cfg.sources[file], dotted, needle)
  end
  local function err(dotted, reason, kind, needle)
    local file, line = where(dotted, needle)
    diags[#diags + 1] = parse.diag(file, line, dotted, reason, kind)
  end

  -- Which keys exist at which level.
  local levels = { [""] = {} }
  local specs = {}
  for _, s in ipairs(schema) do
    specs[s.key] = s
    local top, sub = s.key:match("^([^.]+)%.(.+)$")
    if top then
      levels[""][top] = "table"
      levels[top] = levels[top] or {}
      levels[top][sub] = s
    else
      levels[""][s.key] = s
    end
  end
  for name in pairs(protos) do levels[""][name] = "protocol" end

  local out = {}
  local r = cfg.resolved
  local top_names = util.sorted_keys(levels[""])
  for _, k in ipairs(util.sorted_keys(r)) do
    local kind = levels[""][k]
    local key = tostring(k)
    if not kind then
      err(key, "unknown key" .. util.did_you_mean(key, top_names))
    elseif kind == "table" or kind == "protocol" then
      local v = r[k]
      if type(v) ~= "table" or (next(v) ~= nil and util.is_list(v)) then
        err(key, "expected a table such as " .. key .. " = { ... }, got " .. describe(v))
      else
        local names = {}
        local pspecs = {}
        if kind == "table" then
          for n in pairs(levels[key]) do names[#names + 1] = n end
        else
          for _, p in ipairs(protos[key].params) do
            names[#names + 1] = p.name
            pspecs[p.name] = p
          end
        end
        table.sort(names)
        for _, kk in ipairs(util.sorted_keys(v)) do
          local sub = tostring(kk)
          local known = kind == "table" and levels[key][sub] or pspecs[sub]
          if not known then
            if kind == "protocol" then
              err(key .. "." .. sub, "protocol '" .. key .. "' has no parameter '" .. sub .. "'"
                .. util.did_you_mean(sub, names))
            else
              err(key .. "." .. sub, "unknown key" .. util.did_you_mean(sub, names))
            end
          elseif kind == "protocol" then
            local why = M.check_value(known, v[kk])
            if why then err(key .. "." .. sub, why) end
          end
        end
      end
    end
  end

  -- Core keys: value or default.
  for _, s in ipairs(schema) do
    local top, sub = s.key:match("^([^.]+)%.(.+)$")
    local v
    if top then
      if type(r[top]) == "table" then v = r[top][sub] end
    else
      v = r[s.key]
    end
    if v == nil then v = s.default end
    if v ~= nil and s.key ~= "extends" then
      local why = M.check_value(s, v)
      if why then
        err(s.key, why)
      else
        out[s.key] = v
      end
    end
  end
  if #diags > 0 then return nil, diags end

  -- Protocols: known, implemented, requirements, conflicts.
  local selected, seen = {}, {}
  local all_names = util.sorted_keys(protos)
  local function origin(name)
    return name == cfg.added and " (added by --with-protocol)" or ""
  end
  for _, name in ipairs(out.protocols) do
    local p = protos[name]
    if not p then
      err("protocols", "unknown protocol '" .. name .. "'" .. origin(name)
        .. util.did_you_mean(name, all_names),
        nil, name)
    elseif seen[name] then
      err("protocols", "'" .. name .. "' is listed twice", nil, name)
    else
      seen[name] = true
      selected[#selected + 1] = p
      if not p.implemented then
        err("protocols", "'" .. name .. "'" .. origin(name) .. " has no implementation yet "
          .. "(registry entry only: " .. p.file .. ")", "unimplemented", name)
      end
    end
  end
  table.sort(selected, function(a, b) return a.order < b.order end)

  -- Parameters of the selected protocols, defaults filled.
  local active, vals_of = {}, {}
  for _, p in ipairs(selected) do
    local vals = {}
    local t = type(r[p.name]) == "table" and r[p.name] or {}
    for _, ps in ipairs(p.params) do
      local v = t[ps.name]
      if v == nil then v = ps.default end
      vals[ps.name] = v
    end
    vals_of[p.name] = vals
    active[#active + 1] = { proto = p, params = vals }
  end

  for _, p in ipairs(selected) do
    for _, q in ipairs(p.requires) do
      if not seen[q] then
        err("protocols", "'" .. p.name .. "' requires '" .. q .. "', which is not selected", nil, p.name)
      end
    end
    for _, c in ipairs(p.conflicts) do
      local hit, cond = seen[c.name], {}
      for _, k in ipairs(util.sorted_keys(c.when or {})) do
        hit = hit and vals_of[p.name][k] == c.when[k]
        local v = c.when[k]
        cond[#cond + 1] = p.name .. "." .. k .. " = " .. (type(v) == "string" and ('"' .. v .. '"') or tostring(v))
      end
      if hit then
        local dotted = #cond > 0 and (p.name .. "." .. util.sorted_keys(c.when)[1]) or "protocols"
        local file = cfg.origins[dotted]
        err(file and dotted or "protocols", "'" .. p.name .. "'"
          .. (#cond > 0 and (" with " .. table.concat(cond, ", ")) or "")
          .. " conflicts with '" .. c.name .. "'" .. (c.why and (": " .. c.why) or ""), nil,
          not file and p.name or nil)
      end
    end
  end

  -- Parameters bounded by other keys (at_most, zero_means): compared as used.
  for _, p in ipairs(selected) do
    local vals, specs_of = vals_of[p.name], {}
    for _, ps in ipairs(p.params) do specs_of[ps.name] = ps end
    local function used(ref, depth)
      local v, spec
      if specs_of[ref] then
        v, spec = vals[ref], specs_of[ref]
        if spec.type == "int_lists" then return #v end     -- as used: its number of lists
      else
        v, spec = out[ref], specs[ref]
        if math.type(v) ~= "integer" then return nil, "'" .. ref .. "' is no integer core key" end
      end
      if v == 0 and spec and spec.zero_means and depth < 4 then return used(spec.zero_means, depth + 1) end
      return v
    end
    for _, ps in ipairs(p.params) do
      local v = vals[ps.name]
      for _, b in ipairs(ps.at_most or {}) do
        local dotted = p.name .. "." .. ps.name
        local mine = used(ps.name, 0)
        local limit, why = used(b, 0)
        if why then
          err(dotted, "at_most in " .. p.file .. ": " .. why)
        elseif math.type(mine) == "integer" and math.type(limit) == "integer" and mine > limit then
          local shown = ps.type == "int_lists" and string.format("%d lists", mine)
            or mine == v and tostring(v) or string.format("%d (%s = 0: %s)", mine, ps.name, ps.zero_means)
          local lv = specs_of[b] and (p.name .. "." .. b) or b
          if cfg.origins[dotted] then
            err(dotted, string.format("%s must not exceed %s, which is %d", shown, lv, limit))
          else
            -- the parameter kept its default: said where the bound was set, naming both
            err(cfg.origins[lv] and lv or dotted, string.format("%s (its default, %s) must not exceed %s, which is %d",
              dotted, shown, lv, limit))
          end
          break       -- one reason per parameter
        end
      end
    end
  end

  -- Values that need a capability (schema needs) of some composed protocol.
  local have = {}
  for _, p in ipairs(selected) do
    for _, cap in ipairs(p.provides or {}) do have[cap] = true end
  end
  for _, s in ipairs(schema) do
    local need = s.needs and s.needs[out[s.key]]
    if need and not have[need.capability] then
      local by = {}
      for _, name in ipairs(all_names) do
        for _, cap in ipairs(protos[name].provides or {}) do
          if cap == need.capability then by[#by + 1] = "'" .. name .. "'" end
        end
      end
      err(s.key, "\"" .. out[s.key] .. "\" needs a protocol that provides "
        .. need.capability .. " (" .. (#by > 0 and table.concat(by, ", ") or "none registered")
        .. "), and none is selected: " .. need.why)
    end
  end

  out.active = active
  out.where = where
  return out, diags
end

return M
