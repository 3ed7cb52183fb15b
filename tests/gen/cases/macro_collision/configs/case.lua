return {
  protocols = { "a", "a_b" },
}
