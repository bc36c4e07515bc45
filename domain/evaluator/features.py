"""What the value function looks at: numbers a player reads off the table, for one seat.

Every feature is computed from face-up cards and pile sizes only (a face-down card is never
read), from the point of view of the seat to move (`me`) against the other (`opp`), so that the
value function is symmetric by construction: the other seat's chance is one minus it. They are
cheap (the engine's indexes of what each foundation and house takes next, and one pass of its
move generator for the seat to move), because the search judges many positions per decision.
"""

from __future__ import annotations

from domain.cards import Card
from domain.moves import _raw_steps, foundation_index, house_index
from domain.piles import (
    FIRST_FOUNDATION,
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
    "top_foundation_me",
    "top_foundation_opp",
    "top_house_me",
    "top_house_opp",
    "top_load_me",
    "top_load_opp",
    "shown_foundation",
    "shown_house",
    "shown_load",
    "houses_to_foundation",
    "empty_houses",
    "foundations",
    "loads_me",
    "foundation_moves_me",
    "moves_me",
)
WIDTH = len(NAMES)


def _loads(card: Card, targets: tuple[Card | None, ...]) -> float:
    """Can `card` be loaded onto one of these tops (same suit, one rank apart)?"""
    for top in targets:
        if top is not None and top.suit == card.suit and abs(top.rank - card.rank) == 1:
            return 1.0
    return 0.0


def features(game: GameState) -> list[float]:
    """The feature vector of `game` for its seat to move (see `NAMES`)."""
    me = game.to_move
    opp = 1 - me
    p = game.p
    derived = game.derived
    founds = derived.foundations
    if founds is None:
        founds = foundation_index(game)
    houses = derived.houses
    if houses is None:
        houses = house_index(game)
    wanted, empty, full = houses
    empty_ok = game.ruleset.empty_house != "king_only"

    def top_of(i: int) -> Card | None:
        pile = p[i]
        return pile[-1] if pile else None

    def reserve_top(seat: int) -> Card | None:
        return top_of(RESERVE[seat]) or top_of(SECOND_RESERVE[seat])

    def playable(card: Card | None, seat: int) -> tuple[float, float, float]:
        if card is None:
            return 0.0, 0.0, 0.0
        other = 1 - seat
        to_f = float(card.fkey in founds)
        to_h = float(card.hkey in wanted or bool(empty and (empty_ok or card.rank == 13)))
        load = _loads(card, (reserve_top(other), top_of(WASTE[other])))
        return to_f, to_h, load

    res_me = len(p[RESERVE[me]]) + len(p[SECOND_RESERVE[me]])
    res_opp = len(p[RESERVE[opp]]) + len(p[SECOND_RESERVE[opp]])
    hand_me = len(p[HAND[me]]) + len(p[SECOND_HAND[me]]) + len(p[THIRD_HAND[me]])
    hand_opp = len(p[HAND[opp]]) + len(p[SECOND_HAND[opp]]) + len(p[THIRD_HAND[opp]])
    f_me, h_me, l_me = playable(reserve_top(me), me)
    f_opp, h_opp, l_opp = playable(reserve_top(opp), opp)
    xf, xh, xl = playable(top_of(SHOWN[me]), me)
    house_f = sum(1 for h in full if p[h][-1].fkey in founds)
    founded = sum(len(p[f]) for f in FOUNDATIONS)
    # What the seat to move can do at once (the building rules only, no repetition guard):
    # cards it can load onto the other's reserve or waste, cards it can found, all its moves.
    steps = _raw_steps(game, me)
    targets = (RESERVE[opp], SECOND_RESERVE[opp], WASTE[opp])
    loads = sum(1 for _, dst in steps if dst in targets)
    founding = sum(1 for _, dst in steps if FIRST_FOUNDATION <= dst < FIRST_FOUNDATION + 8)
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
        f_me,
        f_opp,
        h_me,
        h_opp,
        l_me,
        l_opp,
        xf,
        xh,
        xl,
        min(house_f, 4) / 4.0,
        len(empty) / 8.0,
        founded / 104.0,
        min(loads, 4) / 4.0,
        min(founding, 4) / 4.0,
        min(len(steps), 12) / 12.0,
    ]


CONTEXT_NAMES: tuple[str, ...] = (
    *NAMES,
    "reserve_cards_me",
    "loose_cards_me",
    "reserve_cards_opp",
    "loose_cards_opp",
    "turn",
)


def context(game: GameState) -> list[float]:
    """What the anchor of a decision's figures reads (`value.Model.anchored`): the features of
    the position for its seat to move, the cards left in each seat's reserve(s) and in its
    hand(s), X and waste (the benchmark's baseline's inputs, raw), and the turn's number (/100,
    capped at 3): all public."""
    return [*features(game), *cards_left(game), min(game.turn_number, 300) / 100.0]


def cards_left(game: GameState) -> list[float]:
    """The cards left in the reserve(s) and in the hand(s), X and waste of the seat to move,
    then of the other (also the benchmark's baseline's inputs, `fit.BASELINE_NAMES`)."""
    me = game.to_move
    return [
        float(game.reserve_cards(me)),
        float(game.loose_cards(me)),
        float(game.reserve_cards(1 - me)),
        float(game.loose_cards(1 - me)),
    ]
