"""The server draws the deal seeds (the domain never reads a random source)."""

from __future__ import annotations

from domain import deal
from server.services.seeds import new_seed


def test_new_seed_is_64_lower_hex_digits_and_fresh() -> None:
    seeds = {new_seed() for _ in range(8)}
    assert len(seeds) == 8
    for seed in seeds:
        assert len(seed) == 64 and seed == seed.lower()
        int(seed, 16)
        assert len(deal.packs_from_seed(seed)[0]) == 52
