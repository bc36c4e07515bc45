"""Priorities (docs/spec/rules.md §6 and the `finnish` / `french6` orders of §9).

`priority(state, seat)` reads the position once and says, for each kind of action, which priority
rule it would break and which compulsory move a right call then plays (in the default order of
docs/spec/rules.md §7: foundations lowest-numbered first, sources X, T0…T7, then the waste).
"""

from __future__ import annotations

from domain.levels import FREE, Level, Step
from domain.moves import apply_step, building_steps, houses_of
from domain.piles import (
    FIRST_FOUNDATION,
    FIRST_HOUSE,
    FOUNDATION_SET,
    RESERVE,
    SECOND_RESERVE,
    SHOWN,
)
from domain.state import GameState

RESERVE_TO_FOUNDATION = "priority: reserve to foundation first"
TO_FOUNDATION = "priority: foundation first"
ACES_FIRST = "priority: Aces to the foundations first"
FILL_EMPTY_HOUSE = "priority: fill the empty house from your reserve first"
RESERVE_TO_HOUSE = "priority: reserve to house first"
HOUSE_TO_HOUSE = "priority: house to house only to free a better move"
DISCARD_PLAYABLE = "discard: the hand card can still be played"
HAND_TO_HOUSE = "priority: hand card to a house before the waste"

MESSAGES: dict[str, str] = {
    RESERVE_TO_FOUNDATION: "your reserve card can go to a foundation: that move comes first",
    TO_FOUNDATION: "a card can go to a foundation: foundation moves come first",
    ACES_FIRST: "a visible Ace must go to a foundation before anything else",
    FILL_EMPTY_HOUSE: "an empty house must be filled from your reserve first",
    RESERVE_TO_HOUSE: "your reserve card can go onto a house: that comes before other moves",
    HOUSE_TO_HOUSE: "a house-to-house move is allowed only when it frees a better move",
    DISCARD_PLAYABLE: "your hand card can still be played, so it may not be discarded",
    HAND_TO_HOUSE: "your hand card can go onto a house: that comes before discarding it",
}


def priority(state: GameState, seat: int) -> Level:
    """The priority level of the position for `seat` (kept in `state.derived.levels`)."""
    derived = state.derived
    level = derived.levels[seat]
    if level is None:
        level = _compute(state, seat, legal_steps(state, seat))
        levels = derived.levels
        derived.levels = (level, levels[1]) if seat == 0 else (levels[0], level)
    return level


def legal_steps(state: GameState, seat: int) -> list[Step]:
    """The moves the building rules allow `seat` now (kept in `state.derived.steps`)."""
    derived = state.derived
    steps = derived.steps[seat]
    if steps is None:
        steps = building_steps(state, seat)
        known = derived.steps
        derived.steps = (steps, known[1]) if seat == 0 else (known[0], steps)
    return steps


def _compute(state: GameState, seat: int, steps: list[Step]) -> Level:
    """The priority ladder, highest rung first: the refill of `refill_at_once` (before every
    order), then the order's own rungs (docs/spec/rules.md §6 for `classic`, §9 for `finnish` and
    `french6`). One pass sorts the moves first: this runs for every position of a game."""
    p = state.p
    ruleset = state.ruleset
    scheme = ruleset.priorities
    reserve, shown = RESERVE[seat], SHOWN[seat]
    second = SECOND_RESERVE[seat]  # every rule on "the reserve top" applies to Q's too (§10)
    c1: list[Step] = []
    c2: list[Step] = []
    fill: list[Step] = []
    from_x: list[Step] = []
    for step in steps:
        src, dst = step
        from_reserve = src in (reserve, second)
        if dst in FOUNDATION_SET:
            (c1 if from_reserve else c2).append(step)
        elif from_reserve and FIRST_HOUSE <= dst < FIRST_FOUNDATION and not p[dst]:
            fill.append(step)
        if src == shown:
            from_x.append(step)
    if fill and ruleset.empty_house == "refill_at_once":
        refill = _refills(state, fill)
        if refill:
            return Level(required=refill, required_rule=FILL_EMPTY_HOUSE)
    if scheme == "finnish":
        # The reserve is the first source of `steps`, so c1 then c2 keeps their order.
        aces = tuple(s for s in (*c1, *c2) if p[s[0]][-1].rank == 1)
        if aces:
            return Level(required=aces, required_rule=ACES_FIRST)
    if c1:
        return Level(required=tuple(c1), required_rule=RESERVE_TO_FOUNDATION)
    if c2:
        return Level(required=tuple(c2), required_rule=TO_FOUNDATION)
    end_rule = DISCARD_PLAYABLE if ruleset.discard_rule == "only_if_unplayable" and from_x else None
    if scheme == "classic":
        # E: an empty house waits for the reserve before a hand card is turned.
        if not fill and end_rule is None:
            return FREE
        return Level(
            turn_rule=FILL_EMPTY_HOUSE if fill else None,
            turn_moves=tuple(fill),
            end_rule=end_rule,
            end_moves=tuple(from_x) if end_rule else (),
        )
    to_house = _reserve_to_house(state, steps, (reserve, second))
    if to_house:
        return Level(required=to_house, required_rule=RESERVE_TO_HOUSE)
    if scheme == "finnish":
        return Level(end_rule=end_rule, end_moves=tuple(from_x) if end_rule else ())
    # french6: house to house only when it frees a better move; the hand card to a house first.
    houses = set(houses_of(state))
    bad = frozenset(
        s
        for s in steps
        if s[0] in houses and s[1] in houses and not _frees_better_move(state, seat, s)
    )
    x_to_house = tuple(s for s in from_x if s[1] in houses)
    if end_rule is None and x_to_house:
        end_rule, end_moves = HAND_TO_HOUSE, x_to_house
    else:
        end_moves = tuple(from_x) if end_rule else ()
    return Level(end_rule=end_rule, end_moves=end_moves, bad_steps=bad, bad_rule=HOUSE_TO_HOUSE)


def _refills(state: GameState, fill: list[Step]) -> tuple[Step, ...]:
    """The reserve-to-empty-house moves that `refill_at_once` orders: onto a house the mover
    emptied during this turn (docs/spec/rules.md §11). A house that was already empty when the
    turn began waits for the reserve only as §6's E says."""
    emptied = state.emptied
    return tuple(step for step in fill if step[1] in emptied) if emptied else ()


def _reserve_to_house(
    state: GameState, steps: list[Step], reserves: tuple[int, int]
) -> tuple[Step, ...]:
    houses = set(houses_of(state))
    return tuple(s for s in steps if s[0] in reserves and s[1] in houses)


def _frees_better_move(state: GameState, seat: int, step: Step) -> bool:
    """french6: after this house-to-house move, is a reserve or foundation move possible?"""
    after = state._evolved(p=apply_step(state.p, *step))
    reserves = (RESERVE[seat], SECOND_RESERVE[seat])
    houses = set(houses_of(state))
    for src, dst in building_steps(after, seat):
        if dst in FOUNDATION_SET or (src in reserves and dst in houses):
            return True
    return False
