return {
  protocols = { "checksum", "reliability", "dynamic_mtu" },
  mtu = 4096, dynamic_mtu = { min = 8192 },
}
