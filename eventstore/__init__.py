"""An append-only store of opaque JSON events in named streams. Knows nothing of cards."""
