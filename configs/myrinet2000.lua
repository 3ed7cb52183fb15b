-- SPDX-License-Identifier: MIT
-- myrinet2000: the baseline on a timed network modelled on Myrinet-2000 -- 2 Gb/s links and
-- about 0.5 us of hardware latency between two NICs through one switch (the fiber physical
-- layer's conversions and the switch; Myricom's Myrinet-2000 performance page gives "~0.5us
-- total hardware latency" through a single switch, and ~0.0065 us a metre of cable).
return {
  extends = "baseline",
  network = {
    link_mbps = 2000,
    hop_ns = 500,
  },
}
