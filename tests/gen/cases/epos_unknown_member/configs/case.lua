return {
  epos = {
    communicator = "mailbx",
  },
}
