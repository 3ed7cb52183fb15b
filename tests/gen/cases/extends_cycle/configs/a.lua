return {
  extends = "b",
}
