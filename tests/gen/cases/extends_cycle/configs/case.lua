return { extends = "a" }
