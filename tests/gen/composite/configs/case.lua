-- SPDX-License-Identifier: MIT
-- Composite test config: two active test protocols listed out of composition order.
return {
  protocols = { "beta", "alpha" },
  alpha = { level = 3 },
}
