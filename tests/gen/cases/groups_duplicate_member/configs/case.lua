return {
  protocols = { "multicast" },
  multicast = { groups = { { 0, 1, 2 }, { 1, 3, 1 } } },
}
