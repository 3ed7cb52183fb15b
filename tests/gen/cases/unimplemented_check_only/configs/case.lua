return {
  protocols = { "reliability" },
}
