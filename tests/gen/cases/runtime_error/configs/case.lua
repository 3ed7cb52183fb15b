return {
  mtu = os.getenv("MTU"),
}
