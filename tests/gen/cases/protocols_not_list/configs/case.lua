return {
  protocols = "checksum",
}
