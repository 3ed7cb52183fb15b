-- SPDX-License-Identifier: MIT
-- Generator helpers: sorted iteration, canonical JSON, FNV-1a, edit distance, file I/O.
local M = {}

-- Keys of t, sorted: numbers, then strings, then false, true, then keys of other types (a
-- config is anyone's Lua: its tables may have such keys, reported, never compared).
local KEY_RANK = { number = 1, string = 2, boolean = 3 }
function M.sorted_keys(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b)
    local ra, rb = KEY_RANK[type(a)] or 4, KEY_RANK[type(b)] or 4
    if ra ~= rb then return ra < rb end
    if ra == 3 then return not a and b end
    if ra == 4 then return false end
    return a < b
  end)
  return keys
end

-- A list in the JSON sense (also when empty).
local array_mt = { __lc_array = true }
function M.array(t)
  return setmetatable(t or {}, array_mt)
end

function M.is_list(t)
  if type(t) ~= "table" then return false end
  if getmetatable(t) == array_mt then return true end
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  if n == 0 then return false end
  for i = 1, n do
    if t[i] == nil then return false end
  end
  return true
end

local function json_string(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    if c == '"' then return '\\"' end
    if c == "\\" then return "\\\\" end
    if c == "\n" then return "\\n" end
    if c == "\t" then return "\\t" end
    return string.format("\\u%04x", c:byte())
  end) .. '"'
end

-- Canonical JSON: keys sorted, two-space indent, integers as integers.
function M.json(v, indent)
  indent = indent or ""
  local t = type(v)
  if t == "string" then return json_string(v) end
  if t == "boolean" then return tostring(v) end
  if t == "number" then
    if math.type(v) == "integer" then return string.format("%d", v) end
    return string.format("%.17g", v)
  end
  if t ~= "table" then error("json: cannot encode " .. t) end
  local inner = indent .. "  "
  local parts = {}
  if M.is_list(v) then
    if #v == 0 then return "[]" end
    for i = 1, #v do parts[i] = inner .. M.json(v[i], inner) end
    return "[\n" .. table.concat(parts, ",\n") .. "\n" .. indent .. "]"
  end
  local keys = M.sorted_keys(v)
  if #keys == 0 then return "{}" end
  for i, k in ipairs(keys) do
    parts[i] = inner .. json_string(tostring(k)) .. ": " .. M.json(v[k], inner)
  end
  return "{\n" .. table.concat(parts, ",\n") .. "\n" .. indent .. "}"
end

-- FNV-1a 64 (Lua integers wrap modulo 2^64).
function M.fnv1a64(s)
  local h = 0xcbf29ce484222325
  for i = 1, #s do
    h = h ~ s:byte(i)
    h = h * 0x100000001b3
  end
  return h
end

function M.edit_distance(a, b)
  local prev = {}
  for j = 0, #b do prev[j] = j end
  for i = 1, #a do
    local cur = { [0] = i }
    for j = 1, #b do
      local cost = (a:sub(i, i) == b:sub(j, j)) and 0 or 1
      cur[j] = math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
    end
    prev = cur
  end
  return prev[#b]
end

-- The closest candidate to word, if close enough to be a likely typo.
function M.did_you_mean(word, candidates)
  local best, best_d
  local sorted = {}
  for _, c in ipairs(candidates) do sorted[#sorted + 1] = c end
  table.sort(sorted)
  local limit = math.max(2, #word // 3)
  for _, c in ipairs(sorted) do
    -- the distance is at least the difference in length: a long word costs nothing
    if math.abs(#word - #c) <= limit then
      local d = M.edit_distance(word, c)
      if not best_d or d < best_d then best, best_d = c, d end
    end
  end
  if best and best_d <= limit then
    return " (did you mean '" .. best .. "'?)"
  end
  return ""
end

function M.is_pow2(n)
  return math.type(n) == "integer" and n > 0 and (n & (n - 1)) == 0
end

function M.align(n, a)
  return (n + a - 1) // a * a
end

function M.read_file(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

function M.shell_quote(s)
  return "'" .. s:gsub("'", "'\\''") .. "'"
end

-- Names of the entries of a directory, sorted (nil when it does not exist).
function M.list_dir(dir)
  local p = io.popen("ls -1A " .. M.shell_quote(dir) .. " 2>/dev/null")
  local names = {}
  for line in p:lines() do names[#names + 1] = line end
  local ok = p:close()
  if not ok then return nil end
  table.sort(names)
  return names
end

-- Directories this run made or found: one `mkdir -p` (a shell) per directory, not per file.
local made = {}
function M.mkdir_p(dir)
  if made[dir] then return true end
  local ok = os.execute("mkdir -p " .. M.shell_quote(dir))
  if ok then made[dir] = true end
  return ok
end

function M.dirname(path)
  return path:match("^(.*)/[^/]*$") or "."
end

-- Write text to path unless the file already holds exactly that text.
-- Returns true when the file was (re)written.
function M.write_if_changed(path, text)
  if M.read_file(path) == text then return false end
  M.mkdir_p(M.dirname(path))
  local tmp = path .. ".tmp"
  local f, err = io.open(tmp, "wb")
  if not f then error(err) end
  f:write(text)
  f:close()
  local ok, rerr = os.rename(tmp, path)
  if not ok then error(rerr) end
  return true
end

return M
