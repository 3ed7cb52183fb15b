return {
  protocols = { "checksum", "reliability", "dynamic_mtu" },
  mtu = 256, dynamic_mtu = { },
}
