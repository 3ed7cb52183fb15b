return {
  reliability = {
    window = 24,
  },
}
