return {
  ["a\nb"] = 1,
}
