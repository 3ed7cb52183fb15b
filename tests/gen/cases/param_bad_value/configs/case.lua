return {
  protocols = { "checksum" },
  checksum = { cover = "payload" },
}
