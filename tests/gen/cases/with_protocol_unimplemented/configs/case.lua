return {
  protocols = {},
}
