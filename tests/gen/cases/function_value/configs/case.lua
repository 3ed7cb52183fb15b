return {
  mtu = function() return 1 end,
}
