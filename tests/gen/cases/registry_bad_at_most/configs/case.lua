return { protocols = { "p" } }
