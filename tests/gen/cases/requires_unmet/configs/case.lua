return {
  protocols = { "acks" },
}
