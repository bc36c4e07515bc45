"""How the server process runs: the patches to python-engineio and eventlet, the garbage
collector's pauses, and cutting long work into slices of the one event loop."""
