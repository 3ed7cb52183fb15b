-- SPDX-License-Identifier: MIT
-- flowctl_multicast: group sends under credit-based flow control (each copy pays its credit).
return {
  extends = "flowctl",
  protocols = { "flow_control", "multicast" },
  multicast = { mode = "host", max_groups = 16 },
}
