-- SPDX-License-Identifier: MIT
-- rendezvous: the baseline plus rendezvous for large messages (RDMA into the receive buffer).
return {
  extends = "baseline",
  protocols = { "rendezvous" },
}
