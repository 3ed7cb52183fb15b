return {
  [("x"):rep(1 << 20)] = 1,
}
