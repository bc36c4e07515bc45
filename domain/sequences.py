"""Sequence moves (docs/spec/rules.md §5): several house cards at once, as a shortcut for single
moves.

With `k` empty houses, up to `2^k` cards of a house's top sequence (one rank down, colours
alternating) may go onto a non-empty house. The engine plays the shortcut as the single moves it
stands for, each checked as a single move (priorities, repetition guard and the call window
included), so its events are ordinary `CardMoved` events.
"""

from __future__ import annotations

from domain.actions import Move, shared_move
from domain.errors import RulesError
from domain.levels import Step
from domain.moves import houses_of
from domain.piles import ALL_PILES, HOUSE_SET, INDEX
from domain.state import GameState


def is_sequence_move(game: GameState, move: Move) -> bool:
    """A move naming a card below the top of a house, onto another house."""
    s, d = INDEX.get(move.src), INDEX.get(move.dst)
    if move.card is None or s is None or d is None or not (s in HOUSE_SET and d in HOUSE_SET):
        return False
    pile = game.p[s]
    return bool(pile) and pile[-1].code != move.card.code


def single_moves(game: GameState, move: Move) -> list[Move]:
    """The single moves `move` stands for, in the order `decide` plays them: for a multi-card
    shortcut (`T0-T3 3S`), its steps through the empty houses, lowest-numbered first (a verifier
    or importer of records expands a shortcut with this, docs/spec/rules.md §11); any other move
    is its own single move. Raises `RulesError` for a shortcut the houses cannot carry."""
    if not is_sequence_move(game, move):
        return [move]
    assert move.card is not None
    steps = plan(game, move.src, move.dst, move.card.code)
    return [shared_move(move.seat, ALL_PILES[s], ALL_PILES[d]) for s, d in steps]


def plan(game: GameState, src: str, dst: str, code: str) -> list[Step]:
    """The single moves that carry the sequence from `code` up out of `src` onto `dst`."""
    s, d = INDEX[src], INDEX[dst]
    pile = game.p[s]
    bottom = len(pile) - 1
    while bottom > 0:
        below, above = pile[bottom - 1], pile[bottom]
        if below.rank != above.rank + 1 or below.red == above.red:
            break
        bottom -= 1
    starts = [j for j in range(bottom, len(pile) - 1) if pile[j].code == code]
    if not starts:
        raise RulesError(
            "building",
            f"{code} is not in the sequence on top of {src}",
            "not_in_sequence",
            card=code,
            pile=src,
        )
    first = pile[starts[-1]]
    count = len(pile) - starts[-1]
    target = game.p[d]
    if not target:
        raise RulesError(
            "building", "a sequence moves only onto a non-empty house", "sequence_onto_empty"
        )
    top = target[-1]
    if top.rank != first.rank + 1 or top.red == first.red:
        raise RulesError(
            "building",
            f"{first.code} on {top.code}: a house goes down one rank",
            "house_down_one",
            card=first.code,
            top=top.code,
        )
    free = [h for h in houses_of(game) if not game.p[h] and h not in (s, d)]
    if count > 2 ** len(free):
        raise RulesError(
            "building",
            f"with {len(free)} empty house(s) at most {2 ** len(free)} cards move at once",
            "sequence_too_long",
            count=len(free),
            most=2 ** len(free),
        )
    return _steps(count, s, d, free)


def _steps(count: int, src: int, dst: int, free: list[int]) -> list[Step]:
    """Move the top `count` cards of `src` to `dst` through the empty houses `free`: the upper
    half to a free house, the lower half to `dst`, then the upper half onto it."""
    if count == 1:
        return [(src, dst)]
    spare, rest = free[0], free[1:]
    upper = count // 2
    return (
        _steps(upper, src, spare, rest)
        + _steps(count - upper, src, dst, rest)
        + _steps(upper, spare, dst, rest)
    )
