"""Round-robin pairing by Berger tables (the FIDE tables: docs/tournaments.md shows six).

Players are numbered 1..N in registration order; with an odd number a dummy N+1 is added and
whoever meets it has the bye. Over N-1 rounds (N even) everyone meets everyone once, and each
player sits at seat 0 in half of the rounds (one more or less).

The formula behind the tables: in round r, players i and j (both < N) meet when
i + j ≡ r + 1 (mod N - 1); player N meets the i with 2i ≡ r + 1 (mod N - 1). Of i < j the lower
takes seat 0 when j - i is odd, the higher when it is even; player N sits at seat 0 in even
rounds. Table 1 is player N's; table t holds player ((r - 1)·N/2 + t - 1) mod (N - 1) + 1.
"""

from __future__ import annotations


def cycle_rounds(players: int) -> int:
    """Rounds of one cycle for `players` players."""
    return players - 1 if players % 2 == 0 else players


def berger_round(players: int, round_number: int) -> list[tuple[int, int]]:
    """The tables of `round_number` (1-based) for `players` players, as (seat 0, seat 1)
    numbers; with an odd number, the table with the dummy (numbered players + 1) is the bye."""
    n = players + players % 2
    rounds = n - 1
    if not 1 <= round_number <= rounds:
        raise ValueError(f"a round-robin of {players} has rounds 1..{rounds}")
    r = round_number
    tables: list[tuple[int, int]] = []
    for t in range(1, n // 2 + 1):
        anchor = ((r - 1) * (n // 2) + t - 1) % rounds + 1
        if t == 1:
            # anchor is the i with 2i ≡ r + 1 (mod n - 1): player n's opponent.
            tables.append((n, anchor) if r % 2 == 0 else (anchor, n))
            continue
        partner = (r + 1 - anchor - 1) % rounds + 1  # i + j ≡ r + 1 (mod n - 1), j in 1..n-1
        low, high = sorted((anchor, partner))
        tables.append((low, high) if (high - low) % 2 == 1 else (high, low))
    return tables
