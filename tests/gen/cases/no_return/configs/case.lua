-- a config that forgot its return
local t = { mtu = 4096 }
