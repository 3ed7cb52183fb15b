-- SPDX-License-Identifier: MIT
-- reliability in stop-and-wait mode (one unacknowledged frame per peer), to compare with the window.
return {
  extends = "reliable",
  reliability = { mode = "stop_and_wait" },
}
