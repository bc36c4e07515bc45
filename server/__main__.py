"""`python -m server ...` is the `crapette` command."""

from server.cli import main  # server.cli monkey-patches for eventlet before anything else

main()
