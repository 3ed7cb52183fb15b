local nic = { tx_fifo = 4 }
nic.again = nic
return { nic = nic }
