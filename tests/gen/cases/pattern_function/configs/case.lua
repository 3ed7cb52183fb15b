-- the pattern functions are not there: their backtracking cannot be stopped
return { mtu = ("x"):rep(40):find(("x-"):rep(40) .. "y") }
