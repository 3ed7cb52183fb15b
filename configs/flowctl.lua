-- SPDX-License-Identifier: MIT
-- flowctl: credit-based flow control, so a fast sender cannot overrun a slow receiver.
return {
  extends = "baseline",
  protocols = { "flow_control" },
  flow_control = { credits = 8 },
}
