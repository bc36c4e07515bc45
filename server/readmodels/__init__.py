"""Projections folded from the store's events, never written back: the lobby view, replays and
what they may show, statistics and ratings, tournament pages, analyses in words, and the shared
replay file and pictures (`share`)."""
