return {
  protocols = {
    "checksum",
    "reliablity",
  },
}
