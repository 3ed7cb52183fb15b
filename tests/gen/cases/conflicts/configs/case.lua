return {
  protocols = { "fast", "safe" },
}
