return {
  protocols = { "checksum" },
  checksum = {
    covers = "frame",
  },
}
