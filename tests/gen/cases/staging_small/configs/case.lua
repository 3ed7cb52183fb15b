return {
  host = {
    staging_bytes = 8192,
  },
}
