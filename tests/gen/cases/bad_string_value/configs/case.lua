return {
  nic = { mcp = "threads" },
}
