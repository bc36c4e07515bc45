"""Swiss pairing as a maximum-weight perfect matching (`matching.py`), never a greedy pass.

What the pairing asks, most important first (docs/tournaments.md):
1. no two players meet twice, while any pairing of the round allows it;
1b. no player sits three more times at one seat than at the other: two players who are both two
   up at the same seat do not meet, while the round allows it (FIDE's absolute colour rule);
2. with an odd number, the bye goes to the lowest-ranked player who has not had one and whose
   absence still leaves a pairing without repeats (if none, the lowest-ranked without a bye);
3. players meet within their score group: the sum of the squared score differences of the
   round's tables is as small as it can be (one big gap costs more than two small ones);
4. seat balance: as few tables as possible where both players are due the same seat;
5. within a score group, the top half meets the bottom half (1 v 5, 2 v 6… of a group of 8);
6. what is still level: the pairing in which the best-ranked player meets the best-ranked
   opponent left to him, then the next one, and so on (each possible table has a bit of its
   own, the higher the better its players' ranks, so no two pairings ever weigh the same and
   the result never depends on the order the matching library happens to visit the graph).
Each level is weighed so that no amount of a lower level outweighs one step of a higher one, and
the matching takes the heaviest perfect matching: the best pairing by those rules, exactly.

Cost (measured on the development machine, whole Swiss tournaments with random results, the
slowest `PairRound` of each): 8 players 2 ms, 16 players 30 ms, 32 players 0.3 s (the later
rounds, with many pairs already met); networkx's blossom algorithm is O(n³), and the last level's
integers (a bit per possible table) make it about five times slower than without, the price of
a pairing that never depends on the library's visiting order. Hence at most 32 players.

Seats: the player who has sat at seat 0 less often (seat 0 − seat 1 count) takes seat 0; when
both are even, whoever sat at seat 1 last, then the higher-ranked. Tables are numbered from the
top: the best pair (by score, then rank) at table 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from domain.tournament.matching import has_perfect_matching, max_weight_matching


@dataclass(frozen=True, slots=True)
class SwissPlayer:
    """What the pairing knows of one player still in, listed best-ranked first."""

    name: str
    score: float
    had_bye: bool
    seat_balance: int  # times at seat 0 minus times at seat 1
    last_seat: int | None


def pair_swiss(
    players: Sequence[SwissPlayer], met: set[frozenset[str]]
) -> tuple[list[tuple[str, str]], list[str]]:
    """(tables as (seat 0, seat 1) names, best first; byes) for the next round."""
    order = list(players)
    byes: list[str] = []
    if len(order) % 2:
        bye = _choose_bye(order, met)
        byes.append(bye.name)
        order = [p for p in order if p is not bye]
    index = {p.name: i for i, p in enumerate(order)}
    pairs = max_weight_matching(range(len(order)), _weighted_edges(order, met))
    tables = [_seated(order[a], order[b], index) for a, b in pairs]
    tables.sort(key=lambda t: _table_key(t, order, index))
    return [(a.name, b.name) for a, b in tables], byes


def _choose_bye(order: list[SwissPlayer], met: set[frozenset[str]]) -> SwissPlayer:
    candidates = [p for p in reversed(order) if not p.had_bye] or list(reversed(order))
    for candidate in candidates:
        rest = [p for p in order if p is not candidate]
        if _pairable_without_repeats(rest, met):
            return candidate
    return candidates[0]


def _pairable_without_repeats(order: list[SwissPlayer], met: set[frozenset[str]]) -> bool:
    edges = [
        (i, j)
        for i in range(len(order))
        for j in range(i + 1, len(order))
        if frozenset((order[i].name, order[j].name)) not in met
    ]
    return has_perfect_matching(range(len(order)), edges)


def _weighted_edges(
    order: list[SwissPlayer], met: set[frozenset[str]]
) -> list[tuple[int, int, int]]:
    pairs = len(order) // 2
    gaps = {
        (i, j): round(2 * (order[i].score - order[j].score)) ** 2
        for i in range(len(order))
        for j in range(i + 1, len(order))
    }
    widest = max(gaps.values(), default=0)
    groups = _score_groups(order)
    bits = len(gaps)
    edges = []
    for k, ((i, j), gap) in enumerate(gaps.items()):  # (0, 1), (0, 2)… : best ranks first
        a, b = order[i], order[j]
        levels = (
            (0 if frozenset((a.name, b.name)) in met else 1, 1),
            (0 if _seat_limit_broken(a, b) else 1, 1),
            (widest - gap, widest),
            (0 if _same_seat_due(a, b) else 1, 1),
            (_fold_closeness(i, j, groups), len(order)),
            (1 << (bits - 1 - k), 1 << (bits - 1)),
        )
        edges.append((i, j, _combine(levels, pairs)))
    return edges


def _combine(levels: Sequence[tuple[int, int]], pairs: int) -> int:
    """One integer weight whose order is the levels' lexicographic order over any matching of
    `pairs` tables: each level's step outweighs the most all lower levels can add up to."""
    weight, cap = 0, 0
    for value, most in reversed(levels):
        step = pairs * cap + 1
        weight += value * step
        cap += most * step
    return weight


def _seat_limit_broken(a: SwissPlayer, b: SwissPlayer) -> bool:
    """Whether seating this pair takes one of them past two more games at one seat than at the
    other: both already are two up at the same seat (the limit comes before the score groups,
    as FIDE's absolute colour rule does)."""
    return (a.seat_balance >= 2 and b.seat_balance >= 2) or (
        a.seat_balance <= -2 and b.seat_balance <= -2
    )


def _same_seat_due(a: SwissPlayer, b: SwissPlayer) -> bool:
    return (a.seat_balance > 0 and b.seat_balance > 0) or (
        a.seat_balance < 0 and b.seat_balance < 0
    )


def _score_groups(order: list[SwissPlayer]) -> list[tuple[float, int, int]]:
    """For each player (by index): (score, place within its score group, size of the group)."""
    sizes: dict[float, int] = {}
    for p in order:
        sizes[p.score] = sizes.get(p.score, 0) + 1
    seen: dict[float, int] = {}
    places = []
    for p in order:
        places.append((p.score, seen.get(p.score, 0), sizes[p.score]))
        seen[p.score] = seen.get(p.score, 0) + 1
    return places


def _fold_closeness(i: int, j: int, groups: list[tuple[float, int, int]]) -> int:
    """How near the pair is to "top half against bottom half" of their shared score group:
    len(order) for 1 v 5 in a group of 8, less as the distance strays from half the group, 1
    for two of the same half, 0 for players of different groups."""
    (score_i, place_i, size), (score_j, place_j, _) = groups[i], groups[j]
    if score_i != score_j:
        return 0
    half = size // 2
    if (place_i >= half) == (place_j >= half):
        return 1
    return max(1, len(groups) - abs(abs(place_i - place_j) - half))


def _seated(
    a: SwissPlayer, b: SwissPlayer, index: dict[str, int]
) -> tuple[SwissPlayer, SwissPlayer]:
    if a.seat_balance != b.seat_balance:
        return (a, b) if a.seat_balance < b.seat_balance else (b, a)
    if a.last_seat != b.last_seat:
        return (a, b) if a.last_seat == 1 or b.last_seat == 0 else (b, a)
    return (a, b) if index[a.name] < index[b.name] else (b, a)


def _table_key(
    table: tuple[SwissPlayer, SwissPlayer], order: list[SwissPlayer], index: dict[str, int]
) -> tuple[float, int]:
    a, b = table
    return (-max(a.score, b.score), min(index[a.name], index[b.name]))
