-- SPDX-License-Identifier: MIT
-- baseline_thread: the baseline with the MCP running as its own thread per node.
return {
  extends = "baseline",
  nic = { mcp = "thread" },
}
