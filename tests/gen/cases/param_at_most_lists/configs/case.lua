return {
  protocols = { "multicast" },
  multicast = { max_groups = 1, groups = { { 0, 1 }, { 1, 2 } } },
}
