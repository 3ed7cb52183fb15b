return {
  protocols = { "checksum", "checksum" },
}
