return { extends = "p" }
