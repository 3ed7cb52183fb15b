return {
  protocols = { "checksum", "reliability" },
}
