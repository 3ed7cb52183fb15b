return {
  protocols = { "checksum", "reliability", "dynamic_mtu" },
  dynamic_mtu = { min = 2048, max = 1024 },
}
