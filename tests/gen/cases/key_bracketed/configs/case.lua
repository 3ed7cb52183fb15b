return {
  ["mtu"] = 5,
}
