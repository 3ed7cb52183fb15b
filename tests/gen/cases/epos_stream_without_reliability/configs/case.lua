-- an impossible selection: a Stream channel on a config that composes no reliability
return {
  epos = {
    communicator = "port",
    channel = "stream",
  },
}
