return {
  protocols = { "checksum" },
  cheksum = { cover = "frame" },
}
