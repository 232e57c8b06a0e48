"""tensix-harness engines: run program images on ttsim, Wolfpine or a card through tt-umd."""
