return {
  protocols = { "checksum", "reliability", "multicast" },
  multicast = { mode = "nic" },
}
