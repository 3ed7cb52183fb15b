return {
  protocols = { "reliability", "nope" },
}
