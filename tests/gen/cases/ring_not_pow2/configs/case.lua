return {
  nic = {
    recv_ring = 16,
    send_ring = 12,
  },
}
