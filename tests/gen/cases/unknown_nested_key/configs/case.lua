return {
  nic = {
    send_ring = 16,
    send_rng = 16,
  },
}
