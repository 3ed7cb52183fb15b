return {
  mtu = 8192,
  nic = { slot_bytes = 8192 },
}
