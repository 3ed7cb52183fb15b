-- SPDX-License-Identifier: MIT
-- sci: the baseline on a timed network with SCI's link figures, from the OptiSCI cost model's
-- constants (seed 002): inserting 64 bytes on the ring takes 200 ns (T_insertion: 2560 Mb/s),
-- and passing a node takes 4 SCI cycles at 500 MHz plus 25 ns of cable (T_pass_node: 33 ns),
-- here the time a frame's head takes through one switch.  The topology stays the emulated
-- switches (crossbar or two levels), not SCI's rings.
return {
  extends = "baseline",
  network = {
    link_mbps = 2560,
    hop_ns = 33,
  },
}
