return {
  extends = "parent",
  mtu = 4096,
}
