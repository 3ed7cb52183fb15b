return {
  nic = 5,
}
