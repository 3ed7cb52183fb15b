-- b closes the loop
return {
  extends = "a",
}
