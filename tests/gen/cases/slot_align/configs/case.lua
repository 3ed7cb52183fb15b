return {
  nic = {
    slot_bytes = 8250,
  },
}
