-- SPDX-License-Identifier: MIT
-- Parse: load config files and registry entries as data, resolve extends, remember where keys are.
local util = require("util")

local M = {}

-- Diagnostics ---------------------------------------------------------------

-- A diagnostic: file (as shown), line (or nil), key, reason; kind tags the
-- unimplemented-protocol case so --check-only can tell it apart.
function M.diag(file, line, key, reason, kind)
  return { file = file, line = line, key = key, reason = reason, kind = kind }
end

-- One line: control characters a config's strings bring into keys or reasons are escaped, a
-- key longer than 80 bytes (a config may compute one) is shown by its start.
local ESCAPES = { ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }
function M.format_diag(d)
  local where = d.file or "gen"
  if d.line then where = where .. ":" .. d.line end
  local key = #d.key > 80 and string.format("%s... (a key of %d bytes)", d.key:sub(1, 60), #d.key)
    or d.key
  return (string.format("%s: %s: %s", where, key, d.reason):gsub("%c", function(c)
    return ESCAPES[c] or string.format("\\%03d", c:byte())
  end))
end

-- Source text, with comments blanked so key searches do not match them.
local function strip_comments(src)
  src = src:gsub("%-%-%[(=*)%[.-%]%1%]", function(c) return (c:gsub("[^\n]", " ")) end)
  return (src:gsub("%-%-[^\n]*", function(c) return (" "):rep(#c) end))
end

-- Position of the close brace matching the open brace at pos (or #s).
local function match_brace(s, pos)
  local depth, i = 0, pos
  while i <= #s do
    local c = s:sub(i, i)
    if c == '"' or c == "'" then
      local j = i + 1
      while j <= #s and s:sub(j, j) ~= c do
        if s:sub(j, j) == "\\" then j = j + 1 end
        j = j + 1
      end
      i = j
    elseif c == "{" then
      depth = depth + 1
    elseif c == "}" then
      depth = depth - 1
      if depth == 0 then return i end
    end
    i = i + 1
  end
  return #s
end

-- Start of "name =" or '["name"] =' (not "==") in s[from..to], the first of either.
local function find_assign(s, name, from, to)
  local esc = name:gsub("%p", "%%%0")
  local a, b = s:find("%f[%w_]" .. esc .. "%s*=[^=]", from)
  local qa, qb = s:find("%[%s*[\"']" .. esc .. "[\"']%s*%]%s*=[^=]", from)
  if qa and (not a or qa < a) then a, b = qa, qb end
  if not a or a > to then return nil end
  return a, b
end

local function line_of(s, pos)
  local n = 1
  for _ in s:sub(1, pos - 1):gmatch("\n") do n = n + 1 end
  return n
end

-- Line of the last `return` of a source text (the statement that hands over a data file's
-- table), else its last line: where a diagnostic about the value as a whole points.
function M.return_line(src)
  if not src then return nil end
  local s = strip_comments(src)
  local last
  for pos in s:gmatch("()%f[%w_]return%f[^%w_]") do last = pos end
  if last then return line_of(s, last) end
  return line_of(s, math.max(#s, 1))
end

-- Line where a dotted key is written in a source text; needle (optional): a
-- string literal inside the key's value to point at instead.
function M.find_line(src, dotted, needle)
  if not src then return nil end
  local s = strip_comments(src)
  local from, to = 1, #s
  local parts = {}
  for p in dotted:gmatch("[^.]+") do parts[#parts + 1] = p end
  local a, b
  for i, p in ipairs(parts) do
    a, b = find_assign(s, p, from, to)
    if not a then return nil end
    if i < #parts then
      local open = s:find("{", b)
      if not open or open > to then return nil end
      from, to = open, match_brace(s, open)
    end
  end
  if needle then
    local open = s:find("%S", b)
    local stop = to
    if open and s:sub(open, open) == "{" then stop = match_brace(s, open) end
    -- an item named needle (name = "needle", as a registry's parameters are) before any
    -- other mention of the word
    local q = s:find('name%s*=%s*["\']' .. needle:gsub("%p", "%%%0") .. '["\']', b)
      or s:find('"' .. needle .. '"', b, true) or s:find("'" .. needle .. "'", b, true)
    if q and q <= stop then return line_of(s, q) end
  end
  return line_of(s, a)
end

-- Line of a dotted key in a source text, else of the closest enclosing key found there, else
-- of the return statement (a key the text computes, or a value without a key, still gets the
-- line of what holds it).  needle as for find_line.
function M.key_line(src, dotted, needle)
  if not src then return nil end
  local key = dotted ~= "" and dotted or nil
  while key do
    local line = M.find_line(src, key, key == dotted and needle or nil)
    if line then return line end
    key = key:match("^(.*)%.[^.]*$")
  end
  return M.return_line(src)
end

-- Loading data files --------------------------------------------------------

-- A data file runs at most this many VM instructions, this much CPU time (a loop of huge
-- string copies is few instructions) and this much memory (the whole state's, checked every
-- HOOK_EVERY instructions).
local INSTRUCTION_LIMIT = 10000000
local HOOK_EVERY = 10   -- often: a string doubled in a loop ends at most ~8 times past the limit
local CPU_LIMIT_S = 5
local MEMORY_LIMIT_KIB = 64 << 10

-- The string methods a data file may call ("x"):rep(2): not the pattern functions (find,
-- match, gmatch, gsub), whose backtracking runs inside one C call where no hook stops it.
local SAFE_STRING = {}
for _, f in ipairs({ "byte", "char", "format", "len", "lower", "rep", "reverse", "sub", "upper" }) do
  SAFE_STRING[f] = string[f]
end

-- Load a Lua data file in an empty environment.  Returns the value and the
-- source text, or nil and a diagnostic.
function M.load_data(path, shown, what)
  local src = util.read_file(path)
  if not src then
    return nil, M.diag(shown, nil, what, "cannot read the file")
  end
  local chunk, err = load(src, "=" .. shown, "t", {})
  if not chunk then
    local line, msg = err:match("^[^:]*:(%d+): (.*)$")
    if not line and src:sub(1, 1) == "\27" then
      -- load refuses a precompiled chunk before it reads a line: the file's first byte is why
      return nil, M.diag(shown, 1, what, "not valid Lua: a precompiled (binary) chunk, not Lua text")
    end
    return nil, M.diag(shown, tonumber(line) or 1, what, "not valid Lua: " .. (msg or err))
  end
  local co = coroutine.create(chunk)
  local count, t0 = 0, os.clock()
  debug.sethook(co, function()
    count = count + HOOK_EVERY
    if count >= INSTRUCTION_LIMIT or (count % 100000 == 0 and os.clock() - t0 > CPU_LIMIT_S) then
      error("runs too long (endless loop?)", 2)
    end
    if collectgarbage("count") > MEMORY_LIMIT_KIB then
      error(string.format("uses more than %d MiB of memory", MEMORY_LIMIT_KIB >> 10), 2)
    end
  end, "", HOOK_EVERY)
  local string_mt = getmetatable("")
  local string_index = string_mt.__index
  string_mt.__index = SAFE_STRING
  local ok, val = coroutine.resume(co)
  string_mt.__index = string_index
  if not ok then
    local line, msg = tostring(val):match("^[^:]*:(%d+): (.*)$")
    -- an error without a position (out of memory): the line the file was running
    for level = 0, 200 do
      local info = line == nil and debug.getinfo(co, level, "Sl")
      if not info then break end
      if info.source == "=" .. shown and info.currentline > 0 then line = info.currentline end
    end
    return nil, M.diag(shown, tonumber(line), what, "error while loading: " .. (msg or tostring(val)))
  end
  if type(val) ~= "table" then
    return nil, M.diag(shown, M.return_line(src), what,
      "does not return a table (returns " .. type(val) .. ")")
  end
  return val, src
end

-- Configs ---------------------------------------------------------------------

local function deep_copy(v)
  if type(v) ~= "table" then return v end
  local c = {}
  for k, x in pairs(v) do c[k] = deep_copy(x) end
  return setmetatable(c, getmetatable(v))
end

-- Merge child into base (a fresh copy): tables merge key by key, lists and
-- scalars replace.  origins[dotted] = file that set the value.
local function merge(base, child, origins, file, prefix)
  for _, k in ipairs(util.sorted_keys(child)) do
    local v = child[k]
    local dotted = prefix .. tostring(k)
    local b = base[k]
    -- An empty table merges into a table of keys but replaces a list.
    if type(v) == "table" and type(b) == "table" and not util.is_list(v) and not util.is_list(b) then
      origins[dotted] = origins[dotted] or file
      merge(b, v, origins, file, dotted .. ".")
    else
      base[k] = deep_copy(v)
      origins[dotted] = file
      if type(v) == "table" and not util.is_list(v) then
        for _, kk in ipairs(util.sorted_keys(v)) do
          origins[dotted .. "." .. tostring(kk)] = file
        end
      end
    end
  end
end

-- A config is data: each key a name or a list position, each table a list or a table of
-- names, no table inside itself (merging it would never end).  Returns nil, or the dotted key
-- of the table at fault ("" the whole) and the reason.
local function data_problem(t)
  local open = {}
  local function walk(v, dotted)
    open[v] = true
    local names, items = false, false
    for _, k in ipairs(util.sorted_keys(v)) do
      if type(k) == "string" then
        names = true
      elseif math.type(k) == "integer" then
        items = true
      else
        return dotted, "a key that is " .. (type(k) == "number" and ("the float " .. tostring(k))
          or ("a " .. type(k))) .. ": keys are names (name = value) or list positions"
      end
      local x = v[k]
      local sub = dotted == "" and tostring(k) or (dotted .. "." .. tostring(k))
      if open[x] then return sub, "holds the table that contains it (a cycle)" end
      if type(x) == "table" then
        local d, why = walk(x, sub)
        if d then return d, why end
      end
    end
    open[v] = nil
    if names and items then return dotted, "mixes name = value entries with list items" end
    if dotted == "" and items then return dotted, "a list: a config is a table of name = value entries" end
    return nil
  end
  return walk(t, "")
end

-- ctx: { configs_dir, shown_dir }.  Returns resolved table, origins, sources
-- (shown file -> text) and the chain of shown files, or nil and a diagnostic.
function M.load_config(ctx, path, shown)
  local sources, chain, seen = {}, {}, {}
  local function load_one(p, s, from_file, from_name)
    if seen[s] then
      local names = {}
      for _, c in ipairs(chain) do names[#names + 1] = c.name end
      names[#names + 1] = s:match("([^/]+)%.lua$")
      return nil, M.diag(from_file, M.key_line(sources[from_file], "extends"), "extends",
        "cycle in extends: " .. table.concat(names, " -> "))
    end
    if from_file and not util.read_file(p) then
      return nil, M.diag(from_file, M.key_line(sources[from_file], "extends"), "extends",
        "no config named '" .. from_name .. "' (" .. s .. " does not exist)")
    end
    local t, src = M.load_data(p, s, "config")
    if not t then return nil, src end
    local bad, why = data_problem(t)
    if bad then
      return nil, M.diag(s, M.key_line(src, bad), bad == "" and "config" or bad, why)
    end
    seen[s] = true
    sources[s] = src
    chain[#chain + 1] = { file = s, name = s:match("([^/]+)%.lua$"), t = t }
    local ext = t.extends
    if ext ~= nil then
      if type(ext) ~= "string" or not ext:match("^[%w_%-]+$") then
        return nil, M.diag(s, M.key_line(src, "extends"), "extends",
          "must be the name of a config (a string such as \"baseline\")")
      end
      local r, err = load_one(ctx.configs_dir .. "/" .. ext .. ".lua",
        ctx.shown_dir .. "/" .. ext .. ".lua", s, ext)
      if not r then return nil, err end
    end
    return true
  end
  local ok, err = load_one(path, shown)
  if not ok then return nil, err end
  local resolved, origins = {}, {}
  for i = #chain, 1, -1 do
    merge(resolved, chain[i].t, origins, chain[i].file, "")
  end
  resolved.extends = nil
  local files = {}
  for _, c in ipairs(chain) do files[#files + 1] = c.file end
  return resolved, origins, sources, files
end

-- Registry ----------------------------------------------------------------------

-- Every protocols/<p>/protocol.lua: list of { entry, file (shown), src }, sorted by folder.
function M.load_registry(ctx)
  local out, diags = {}, {}
  local names = util.list_dir(ctx.protocols_dir) or {}
  for _, n in ipairs(names) do
    local p = ctx.protocols_dir .. "/" .. n .. "/protocol.lua"
    if util.read_file(p) then
      local shown = ctx.shown_protocols_dir .. "/" .. n .. "/protocol.lua"
      local t, src = M.load_data(p, shown, "protocol")
      if t then
        out[#out + 1] = { entry = t, folder = n, file = shown, src = src }
      else
        diags[#diags + 1] = src
      end
    end
  end
  return out, diags
end

return M
