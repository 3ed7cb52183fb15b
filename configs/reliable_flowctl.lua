-- SPDX-License-Identifier: MIT
-- reliable_flowctl: reliable delivery with credit-based flow control.
return {
  extends = "reliable",
  protocols = { "checksum", "reliability", "flow_control" },
  flow_control = { credits = 16 },
}
