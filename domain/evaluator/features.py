"""What the value function looks at: numbers a player reads off the table, for one seat.

Every feature is computed from face-up cards and pile sizes only (a face-down card is never
read), from the point of view of the seat to move (`me`) against the other (`opp`), so that the
value function is symmetric by construction: the other seat's chance is one minus it.
"""

from __future__ import annotations

from domain.moves import building_steps
from domain.piles import (
    FIRST_FOUNDATION,
    FIRST_HOUSE,
    FOUNDATIONS,
    HAND,
    RESERVE,
    SECOND_HAND,
    SECOND_RESERVE,
    SHOWN,
    THIRD_HAND,
    WASTE,
)
from domain.state import GameState

NAMES: tuple[str, ...] = (
    "reserve_me",
    "reserve_opp",
    "hand_me",
    "hand_opp",
    "waste_me",
    "waste_opp",
    "shown_me",
    "reserve_out_me",
    "reserve_out_opp",
    "reserve_top_founds_me",
    "reserve_top_founds_opp",
    "reserve_top_moves_me",
    "reserve_top_moves_opp",
    "moves_me",
    "moves_opp",
    "loads_on_me",
    "loads_on_opp",
    "empty_houses",
    "foundations",
    "shown_founds",
)
WIDTH = len(NAMES)


def _side(game: GameState, seat: int) -> tuple[int, int, int, int, int, int]:
    """(reserve-top foundation moves, reserve-top moves, all moves, loads onto the opponent,
    hand-card foundation moves) of `seat` if it were to move now."""
    steps = building_steps(game, seat)
    reserve = (RESERVE[seat], SECOND_RESERVE[seat])
    other = 1 - seat
    targets = (RESERVE[other], SECOND_RESERVE[other], WASTE[other])
    top_f = top_m = loads = shown_f = 0
    for src, dst in steps:
        to_f = FIRST_FOUNDATION <= dst < FIRST_FOUNDATION + 8
        if src in reserve:
            top_m += 1
            top_f += to_f
        elif src == SHOWN[seat]:
            shown_f += to_f
        if dst in targets:
            loads += 1
    return top_f, top_m, len(steps), loads, shown_f, 0


def features(game: GameState) -> list[float]:
    """The feature vector of `game` for its seat to move (see `NAMES`)."""
    me = game.to_move
    opp = 1 - me
    p = game.p
    res_me = len(p[RESERVE[me]]) + len(p[SECOND_RESERVE[me]])
    res_opp = len(p[RESERVE[opp]]) + len(p[SECOND_RESERVE[opp]])
    hand_me = len(p[HAND[me]]) + len(p[SECOND_HAND[me]]) + len(p[THIRD_HAND[me]])
    hand_opp = len(p[HAND[opp]]) + len(p[SECOND_HAND[opp]]) + len(p[THIRD_HAND[opp]])
    f_me, m_me, all_me, load_me, sf_me, _ = _side(game, me)
    # The opponent's moves as they would be if the turn were his now.
    other = game._evolved(to_move=opp, seen=frozenset(), emptied=frozenset())
    f_opp, m_opp, all_opp, load_opp, _, _ = _side(other, opp)
    empty = sum(1 for h in range(FIRST_HOUSE, FIRST_FOUNDATION) if not p[h])
    empty -= 8 - 2 * game.ruleset.houses_per_player
    founded = sum(len(p[f]) for f in FOUNDATIONS)
    return [
        res_me / 13.0,
        res_opp / 13.0,
        hand_me / 39.0,
        hand_opp / 39.0,
        len(p[WASTE[me]]) / 39.0,
        len(p[WASTE[opp]]) / 39.0,
        float(bool(p[SHOWN[me]])),
        float(res_me == 0),
        float(res_opp == 0),
        min(f_me, 2) / 2.0,
        min(f_opp, 2) / 2.0,
        min(m_me, 4) / 4.0,
        min(m_opp, 4) / 4.0,
        min(all_me, 12) / 12.0,
        min(all_opp, 12) / 12.0,
        min(load_opp, 4) / 4.0,
        min(load_me, 4) / 4.0,
        empty / 8.0,
        founded / 104.0,
        float(sf_me > 0),
    ]
