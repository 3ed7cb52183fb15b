return {
  extends = "case",
}
