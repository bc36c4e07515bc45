"""The Russian Bank rules engine: pure, standard library only."""
