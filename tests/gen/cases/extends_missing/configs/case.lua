return {
  extends = "baseline",
}
