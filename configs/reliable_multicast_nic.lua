-- SPDX-License-Identifier: MIT
-- reliable_multicast_nic: group frames replicated by the sender's NIC, each copy stamped with its member's reliability seq.
return {
  extends = "reliable_multicast",
  protocols = { "checksum", "reliability", "multicast" },
  multicast = { mode = "nic", max_groups = 16 },
}
