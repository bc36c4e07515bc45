"""The use cases, one module per job (opening tables and taking seats, a seated player's
commands, rematches, the autopilot, reads, practice tables, analyses, tournaments, upkeep). Each
is load → fold → decide → append through `server.adapters`; none knows HTTP or Socket.IO."""
