return {
  protocols = { "fast", "safe" },
  fast = { mode = "b" },
}
