return {
  reliability = {
    timeout_us = 0,
  },
}
