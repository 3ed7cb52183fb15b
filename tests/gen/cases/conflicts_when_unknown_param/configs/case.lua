return {
  protocols = { "fast" },
}
