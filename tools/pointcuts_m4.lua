-- SPDX-License-Identifier: MIT
-- Expand framework/pointcuts.lua (the one pointcut table) into m4 definitions for templates/*.m4.
--
-- usage: lua5.4 tools/pointcuts_m4.lua framework/pointcuts.lua > defs.m4
-- Emits, with the quotes [[ ]] set by templates/prelude.m4:
--   LC_PC_HOST_LIST  LC_PC_ITEM(name, ret, combine, decl, unused, retstmt, help, zargs,
--                    neutral) per host pointcut, in table order; decl is the parameter
--                    list, unused the (void) casts, retstmt the neutral return
--                    ("return LC_CONTINUE;"), zargs NULL/0 for each argument, neutral
--                    the neutral value (empty for void)
--   LC_PC_HOST_NAMES "init", "fini", ... (for a registry entry's pointcuts list)
--   LC_PC_NIC_NAMES  the NIC-side pointcuts, for the documentation
local path = arg[1] or "framework/pointcuts.lua"
local chunk, err = loadfile(path, "t", {})
if not chunk then io.stderr:write(err, "\n") os.exit(1) end
local ok, pcs = pcall(chunk)
if not ok or type(pcs) ~= "table" then
  io.stderr:write(path, ": does not return the pointcut table\n")
  os.exit(1)
end

local function q(s)
  assert(not s:find("[[", 1, true) and not s:find("]]", 1, true), "m4 quote in " .. s)
  return "[[" .. s .. "]]"
end

-- Wrap help to comment lines of at most 88 columns, continued with " * ".
local function wrap(text)
  local lines, line = {}, ""
  for word in text:gmatch("%S+") do
    if #line + #word + 1 > 80 and #line > 0 then
      lines[#lines + 1] = line
      line = word
    else
      line = (#line > 0) and (line .. " " .. word) or word
    end
  end
  if #line > 0 then lines[#lines + 1] = line end
  return table.concat(lines, "\n * ")
end

local items, host, nic = {}, {}, {}
for _, pc in ipairs(pcs) do
  local decl, unused, zargs = {}, {}, {}
  for _, p in ipairs(pc.params) do
    local ty, name = p[1], p[2]
    decl[#decl + 1] = ty:sub(-1) == "*" and (ty .. name) or (ty .. " " .. name)
    unused[#unused + 1] = "(void)" .. name .. ";"
    zargs[#zargs + 1] = ty:find("*", 1, true) and "NULL" or "0"
  end
  -- the neutral value is the table's own column (void: none)
  local neutral = pc.ret == "void" and "" or pc.neutral
  assert(type(neutral) == "string" and (pc.ret == "void") == (neutral == ""),
    "pointcut " .. tostring(pc.name) .. ": no neutral value for ret " .. tostring(pc.ret))
  if pc.side == "host" then
    host[#host + 1] = '"' .. pc.name .. '"'
    items[#items + 1] = "LC_PC_ITEM(" .. table.concat({ q(pc.name), q(pc.ret), q(pc.combine),
      q(table.concat(decl, ", ")), q(table.concat(unused, "\n\t")),
      q(neutral == "" and "" or ("return " .. neutral .. ";")), q(wrap(pc.help)),
      q(table.concat(zargs, ", ")), q(neutral) }, ", ") .. ")"
  elseif pc.side == "nic" then
    nic[#nic + 1] = pc.name
  end
end
io.write("m4_define([[LC_PC_HOST_LIST]], [[", table.concat(items, "\n"), "]])m4_dnl\n")
io.write("m4_define([[LC_PC_HOST_NAMES]], [[", table.concat(host, ", "), "]])m4_dnl\n")
io.write("m4_define([[LC_PC_NIC_NAMES]], [[", table.concat(nic, ", "), "]])m4_dnl\n")
