return {
  protocols = { "checksum", "reliability", "dynamic_mtu" },
  dynamic_mtu = { max = 65536 },
}
