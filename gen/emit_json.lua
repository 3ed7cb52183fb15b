-- SPDX-License-Identifier: MIT
-- Emit config.json: the resolved config, layouts and fingerprint, keys sorted.
local util = require("util")

local M = {}

function M.emit(m)
  local d = {}
  for k, v in pairs(m.description) do d[k] = v end
  d.name = m.name
  d.fingerprint = string.format("0x%016x", m.fingerprint)
  d.frame_magic = string.format("0x%04x", m.magic)
  d.generator = "gen/main.lua"
  return util.json(d) .. "\n"
end

return M
