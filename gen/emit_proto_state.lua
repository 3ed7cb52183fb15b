-- SPDX-License-Identifier: MIT
-- Emit lc_proto_state.h: the per-node state of every active protocol in one struct.
local common = require("emit_common")

local M = {}

function M.emit(m)
  local body = { "#include <stdint.h>", "" }
  for _, p in ipairs(m.protocols) do
    body[#body + 1] = "#include \"" .. p.name .. "/state.h\""
  end
  if #m.protocols > 0 then body[#body + 1] = "" end
  body[#body + 1] = "/* Per-node state of the composed protocols (lc_unused keeps it non-empty). */"
  body[#body + 1] = "struct lc_proto_state {"
  for _, p in ipairs(m.protocols) do
    body[#body + 1] = string.format("\tstruct lc_%s_state %s;", p.name, p.name)
  end
  body[#body + 1] = "\tuint8_t lc_unused;"
  body[#body + 1] = "};"
  return common.header(m, "lc_proto_state.h", "Per-node state of the composed protocols.", body)
end

return M
