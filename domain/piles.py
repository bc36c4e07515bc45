"""Pile names (``R0 … F7``) and the fixed order the engine stores them in."""

from __future__ import annotations

from domain.errors import NotationError, quote

# The engine keeps piles in a tuple in this order; a pile's index is its position here.
ALL_PILES: tuple[str, ...] = (
    ("R0", "R1", "H0", "H1", "X0", "X1", "W0", "W1")
    + tuple(f"T{i}" for i in range(8))
    + tuple(f"F{i}" for i in range(8))
    + ("Q0", "Q1")  # the second reserves of reserves_per_player=2 (docs/spec/rules.md §10)
    + ("I0", "I1", "J0", "J1")  # the second and third hands of hands_per_player=3 (§10)
)
INDEX: dict[str, int] = {name: i for i, name in enumerate(ALL_PILES)}

RESERVE = (0, 1)  # R<seat>
HAND = (2, 3)  # H<seat>
SHOWN = (4, 5)  # X<seat>: the turned-up hand card
WASTE = (6, 7)  # W<seat>
SECOND_RESERVE = (INDEX["Q0"], INDEX["Q1"])  # Q<seat>: always empty with one reserve
# Each seat's reserves in the order the default remedy takes them (R before Q), by
# reserves_per_player.
RESERVES: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {
    1: ((RESERVE[0],), (RESERVE[1],)),
    2: ((RESERVE[0], SECOND_RESERVE[0]), (RESERVE[1], SECOND_RESERVE[1])),
}
SECOND_HAND = (INDEX["I0"], INDEX["I1"])  # I<seat>: always empty with one hand
THIRD_HAND = (INDEX["J0"], INDEX["J1"])  # J<seat>
# Each seat's hands in the order an unnamed turn takes them (H, I, J), by hands_per_player.
HANDS: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {
    1: ((HAND[0],), (HAND[1],)),
    3: ((HAND[0], SECOND_HAND[0], THIRD_HAND[0]), (HAND[1], SECOND_HAND[1], THIRD_HAND[1])),
}
HAND_SET = frozenset(HANDS[3][0] + HANDS[3][1])
# The houses T0…T7 and the foundations F0…F7 are two runs of indexes: a house is
# `FIRST_HOUSE <= i < FIRST_FOUNDATION`, a foundation `FIRST_FOUNDATION <= i < END_FOUNDATION`.
FIRST_HOUSE = INDEX["T0"]
FIRST_FOUNDATION = INDEX["F0"]
END_FOUNDATION = INDEX["F7"] + 1
HOUSES: tuple[int, ...] = tuple(range(FIRST_HOUSE, FIRST_FOUNDATION))
FOUNDATIONS: tuple[int, ...] = tuple(range(FIRST_FOUNDATION, END_FOUNDATION))
HOUSE_SET = frozenset(HOUSES)
FOUNDATION_SET = frozenset(FOUNDATIONS)


_NOT_A_PILE = "{} is not a pile (R0 R1 Q0 Q1 H0 H1 I0 I1 J0 J1 X0 X1 W0 W1 T0…T7 F0…F7)"


def is_pile(name: str) -> bool:
    return name in INDEX


def pile_index(name: str) -> int:
    try:
        return INDEX[name.upper()]
    except (KeyError, AttributeError):
        raise NotationError(_NOT_A_PILE.format(quote(name))) from None


def house_indices(houses_per_player: int) -> tuple[int, ...]:
    """The houses of a layout: all eight, or T0 T1 T4 T5 with two houses per player."""
    if houses_per_player == 4:
        return HOUSES
    per_seat = len(HOUSES) // 2  # T0…T3 are seat 0's side, T4…T7 seat 1's
    return tuple(
        FIRST_HOUSE + per_seat * seat + i for seat in (0, 1) for i in range(houses_per_player)
    )


def layout_piles(
    houses_per_player: int, reserves_per_player: int = 1, hands_per_player: int = 1
) -> tuple[str, ...]:
    """The names of the piles that exist in a layout, in engine order."""
    key = (houses_per_player, reserves_per_player, hands_per_player)
    known = LAYOUTS.get(key)
    return known if known is not None else _layout(*key)


def _layout(
    houses_per_player: int, reserves_per_player: int, hands_per_player: int
) -> tuple[str, ...]:
    houses = set(house_indices(houses_per_player))
    absent = set() if reserves_per_player == 2 else set(SECOND_RESERVE)
    if hands_per_player != 3:
        absent |= {*SECOND_HAND, *THIRD_HAND}
    return tuple(
        n for i, n in enumerate(ALL_PILES) if (i not in HOUSES or i in houses) and i not in absent
    )


# The layouts the rules allow (houses_per_player 4 or 2, reserves_per_player 1 or 2,
# hands_per_player 1 or 3), worked out once: every view lists the piles of its layout.
LAYOUTS: dict[tuple[int, int, int], tuple[str, ...]] = {
    (houses, reserves, hands): _layout(houses, reserves, hands)
    for houses in (4, 2)
    for reserves in (1, 2)
    for hands in (1, 3)
}
