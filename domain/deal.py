"""The deal `sha256-fy/1` (docs/spec/records.md §1), the dealt layout and who starts.

The layout is docs/spec/rules.md §2, who starts §3 and §9.

Everything here is a pure function of the seed or of the two packs, so that any program can rebuild
a game's deal from its record alone. The shuffle is written out by hand, never left to `random`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from typing import Protocol

from domain.cards import Card
from domain.errors import quote

ALGORITHM = "sha256-fy/1"
RANKS = "A23456789TJQK"
SUITS = "SHDC"
# The unshuffled pack, index 0 = AS: AS 2S … KS AH … KH AD … KD AC … KC.
FRESH_PACK: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)

_TWO_64 = 1 << 64


class DealError(ValueError):
    """A seed or pack that cannot make a deal."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class _Ranked(Protocol):
    @property
    def rank(self) -> int: ...


def seed_bytes(seed: str) -> bytes:
    """The 32 bytes of a seed written as 64 hex digits (either case)."""
    if len(seed) != 64:
        raise DealError(f"a seed is 64 hex digits, not {len(seed)} characters: {quote(seed)}")
    try:
        return bytes.fromhex(seed)
    except ValueError:
        raise DealError(f"a seed is 64 hex digits: {quote(seed)} is not hexadecimal") from None


def commitment(seed: str) -> str:
    """The hex SHA-256 of the seed's bytes, shown to players before the seed itself is revealed."""
    return hashlib.sha256(seed_bytes(seed)).hexdigest()


def stream(seed: str, label: bytes, seat: int) -> Iterator[int]:
    """u_0, u_1, …: the first 8 bytes (big-endian) of SHA-256(seed ‖ label ‖ seat ‖ k)."""
    prefix = seed_bytes(seed) + label + bytes([seat])
    k = 0
    while True:
        digest = hashlib.sha256(prefix + k.to_bytes(4, "big")).digest()
        yield int.from_bytes(digest[:8], "big")
        k += 1


def shuffled_codes(seed: str, seat: int) -> list[str]:
    """Seat's pack as card codes, top first (Fisher–Yates, `deal` stream, no modulo bias)."""
    pack = list(FRESH_PACK)
    draws = stream(seed, b"deal", seat)
    for i in range(51, 0, -1):
        n = i + 1
        limit = _TWO_64 - (_TWO_64 % n)
        u = next(draws)
        while u >= limit:  # rejection keeps every j equally likely
            u = next(draws)
        j = u % n
        pack[i], pack[j] = pack[j], pack[i]
    return pack


def packs_from_seed(seed: str) -> tuple[list[Card], list[Card]]:
    """Both packs of a seed, top first; each card remembers its owner."""
    return (
        [Card.parse(code, owner=0) for code in shuffled_codes(seed, 0)],
        [Card.parse(code, owner=1) for code in shuffled_codes(seed, 1)],
    )


def cut_ranks(seed: str, k: int) -> tuple[int, int]:
    """Round k of the `high_cut`: each seat's cut rank 1..13 from its own `cut` stream."""
    ranks: list[int] = []
    for seat in (0, 1):
        draws = stream(seed, b"cut", seat)
        u = 0
        for _ in range(k + 1):
            u = next(draws)
        ranks.append(u % 13 + 1)
    return ranks[0], ranks[1]


def first_byte_coin(seed: str) -> int:
    """The seat a full tie goes to: lowest bit of the first byte of SHA-256(seed ‖ b"first")."""
    return hashlib.sha256(seed_bytes(seed) + b"first").digest()[0] & 1


def house_names(seat: int, houses_per_player: int) -> list[str]:
    """Seat's houses nearest the reserve first (T0/T4 nearest; with 2 houses only T0 T1 / T4 T5)."""
    return [f"T{4 * seat + i}" for i in range(houses_per_player)]


def layout(
    packs: Sequence[Sequence[Card]],
    reserve_size: int = 13,
    houses_per_player: int = 4,
    reserves_per_player: int = 1,
    hands_per_player: int = 1,
) -> dict[str, list[Card]]:
    """docs/spec/rules.md §2: every pile of the dealt position, each listed bottom to top.

    The reserve takes the first `reserve_size` cards (the last of them on top, face up); the houses
    take the next ones, furthest from the reserve first; the hand takes the rest, `D[r+h]` on top.
    With two reserves (§10) the reserve cards go to `R` and `Q` in turn, `D[0]` to `R`; with
    three hands the hand cards go to `H`, `I` and `J` in turn, `D[r+h]` to `H` (on top of it).
    """
    piles: dict[str, list[Card]] = {}
    for seat, pack in enumerate(packs):
        if len(pack) != 52:
            raise DealError(f"seat {seat}'s pack has {len(pack)} cards, not 52")
        r = reserve_size
        houses = house_names(seat, houses_per_player)
        if reserves_per_player == 2:
            piles[f"R{seat}"] = list(pack[0:r:2])
            piles[f"Q{seat}"] = list(pack[1:r:2])
        else:
            piles[f"R{seat}"] = list(pack[:r])
        for offset, house in enumerate(reversed(houses)):
            piles[house] = [pack[r + offset]]
        rest = pack[r + houses_per_player :]
        if hands_per_player == 3:
            for offset, kind in enumerate("HIJ"):
                piles[f"{kind}{seat}"] = list(reversed(rest[offset::3]))
        else:
            piles[f"H{seat}"] = list(reversed(rest))
        piles[f"X{seat}"] = []
        piles[f"W{seat}"] = []
    for seat in (0, 1):
        for house in house_names(seat, 4):
            piles.setdefault(house, [])
    for f in range(8):
        piles[f"F{f}"] = []
    if houses_per_player != 4:  # the houses that do not exist in this layout
        for seat in (0, 1):
            for house in house_names(seat, 4)[houses_per_player:]:
                del piles[house]
    return piles


def _compared_cards(
    packs: Sequence[Sequence[_Ranked]],
    reserve_size: int,
    houses_per_player: int,
    reserves_per_player: int = 1,
) -> list[tuple[str, _Ranked, _Ranked]]:
    """(what, seat 0's card, seat 1's card): reserve tops (R, then Q with two reserves, §10),
    then houses from the reserve out."""
    r = reserve_size
    h = houses_per_player
    if reserves_per_player == 2:
        # R holds D[0], D[2], …: its top is the last even index below r, Q's the last odd one.
        top_r, top_q = (r - 1, r - 2) if (r - 1) % 2 == 0 else (r - 2, r - 1)
        pairs: list[tuple[str, _Ranked, _Ranked]] = [
            ("R top", packs[0][top_r], packs[1][top_r]),
            ("Q top", packs[0][top_q], packs[1][top_q]),
        ]
    else:
        pairs = [("reserve top", packs[0][r - 1], packs[1][r - 1])]
    # The house nearest the reserve (T0/T4) got the last house card, pack[r + h - 1].
    for i in range(h):
        names = f"T{i}/T{4 + i}"
        pairs.append((names, packs[0][r + h - 1 - i], packs[1][r + h - 1 - i]))
    return pairs


def _by_reserve(
    packs: Sequence[Sequence[_Ranked]],
    seed: str | None,
    reserve_size: int,
    houses_per_player: int,
    lower: bool,
    reserves_per_player: int = 1,
) -> tuple[int, str]:
    word = "lower" if lower else "higher"
    compared = _compared_cards(packs, reserve_size, houses_per_player, reserves_per_player)
    for what, card0, card1 in compared:
        if card0.rank == card1.rank:
            continue
        seat0_wins = card0.rank < card1.rank if lower else card0.rank > card1.rank
        seat = 0 if seat0_wins else 1
        mine, theirs = (card0, card1) if seat == 0 else (card1, card0)
        return seat, f"{word} {what}: {_code(mine)} against {_code(theirs)}"
    if seed is None:
        return 0, "reserve tops and houses all tie; explicit packs: seat 0 starts"
    seat = first_byte_coin(seed)
    return seat, f"reserve tops and houses all tie; the seed's coin gives seat {seat}"


def _code(card: _Ranked) -> str:
    code = getattr(card, "code", None)
    return code if isinstance(code, str) else RANKS[card.rank - 1]


def _by_cut(seed: str | None) -> tuple[int, str]:
    if seed is None:
        # No seed to cut with: a dealt-by-hand game (puzzle, lesson, test) is set up for seat 0.
        return 0, "high cut impossible without a seed; explicit packs: seat 0 starts"
    k = 0
    while True:  # ends: a tie every round has probability 1/13 per round
        cut0, cut1 = cut_ranks(seed, k)
        if cut0 != cut1:
            seat = 0 if cut0 > cut1 else 1
            return seat, (
                f"high cut (round {k + 1}): {RANKS[cut0 - 1]} against {RANKS[cut1 - 1]},"
                f" seat {seat} cut higher"
            )
        k += 1


def first_player(
    ruleset: object,
    packs: Sequence[Sequence[_Ranked]],
    seed: str | None,
    game_index: int,
    previous_first: int | None,
) -> tuple[int, str]:
    """(seat, reason) of the player who starts this game, by the ruleset's `first_player` option.

    `alternate`: the seat that did not start the previous game; its first game (or a game with no
    known previous starter) is decided as under `lower_reserve`.
    """
    option = str(getattr(ruleset, "first_player", "lower_reserve"))
    reserve_size = int(getattr(ruleset, "reserve_size", 13))
    houses = int(getattr(ruleset, "houses_per_player", 4))
    reserves = int(getattr(ruleset, "reserves_per_player", 1))
    if option == "alternate":
        if game_index > 0 and previous_first is not None:
            seat = 1 - previous_first
            return seat, f"alternate: seat {previous_first} started the previous game"
        seat, reason = _by_reserve(packs, seed, reserve_size, houses, True, reserves)
        return seat, f"alternate, first game by {reason}"
    if option == "lower_reserve":
        return _by_reserve(packs, seed, reserve_size, houses, True, reserves)
    if option == "higher_reserve":
        return _by_reserve(packs, seed, reserve_size, houses, False, reserves)
    if option == "high_cut":
        return _by_cut(seed)
    raise DealError(f"unknown first_player option {quote(option)}")
