return {
  name = "p", order = 1, implemented = true,
  help = "test protocol p", order_why = "test",
  params = {
    { name = "count", type = "integer", default = 1, min = 0, max = 4, help = "a number" },
  },
  header = {},
  pointcuts = {},
  job_nodes = "count",
  requires = {}, conflicts = {}, sources = {},
}
