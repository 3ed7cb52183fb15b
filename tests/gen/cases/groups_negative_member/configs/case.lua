return {
  protocols = { "multicast" },
  multicast = { groups = { { 0, -1 } } },
}
