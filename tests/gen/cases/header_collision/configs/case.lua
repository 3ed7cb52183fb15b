return {
  protocols = { "msg" },
}
