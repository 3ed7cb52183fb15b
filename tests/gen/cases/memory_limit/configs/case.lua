local s = ("x"):rep(1 << 26)
for i = 1, 1e6 do local t = s .. s end
return {}
