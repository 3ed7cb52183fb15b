-- SPDX-License-Identifier: MIT
-- Emit lc_protocols.h: X-macro lists of the active and of all registered protocols.
local common = require("emit_common")
local util = require("util")

local M = {}

function M.emit(m, protos)
  local body = {
    "/* X(name, order): the composed protocols, in composition order. */",
  }
  local lines = { "#define LC_ACTIVE_PROTOCOLS(X)" }
  for _, p in ipairs(m.protocols) do
    lines[#lines + 1] = string.format("\tX(%s, %d)", p.name, p.order)
  end
  for i = 1, #lines - 1 do lines[i] = lines[i] .. " \\" end
  for _, l in ipairs(lines) do body[#body + 1] = l end
  body[#body + 1] = ""
  body[#body + 1] = "/* X(name, order, active): every registered protocol, in composition order. */"
  local all = {}
  for _, name in ipairs(util.sorted_keys(protos)) do all[#all + 1] = protos[name] end
  table.sort(all, function(a, b) return a.order < b.order end)
  local active = {}
  for _, p in ipairs(m.protocols) do active[p.name] = true end
  lines = { "#define LC_ALL_PROTOCOLS(X)" }
  for _, p in ipairs(all) do
    lines[#lines + 1] = string.format("\tX(%s, %d, %d)", p.name, p.order, active[p.name] and 1 or 0)
  end
  for i = 1, #lines - 1 do lines[i] = lines[i] .. " \\" end
  for _, l in ipairs(lines) do body[#body + 1] = l end
  body[#body + 1] = ""
  body[#body + 1] = string.format("#define LC_ACTIVE_PROTOCOL_COUNT %d", #m.protocols)
  body[#body + 1] = string.format("#define LC_ALL_PROTOCOL_COUNT %d", #all)
  return common.header(m, "lc_protocols.h", "X-macro lists of the composed and registered protocols.", body)
end

return M
