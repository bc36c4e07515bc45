"""Helpers of the rule scenario tests: build a position from a few lines, act on it, read events.

A position is written one pile per line, cards bottom to top (the last one is the top):

    R0: 9D 3S        (seat 0's reserve; 3S on top)
    T0: KS QH/1      (a house; cards are seat 0's unless written /1)
    F0: AS 2S

Cards of R/H/X/W piles belong to that pile's seat unless written otherwise; unnamed piles are
empty. Positions need not hold all 104 cards: a rule is about the cards it touches.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import pytest

from domain import Card, RulesError, Ruleset
from domain.actions import Action, parse_action
from domain.commands import Act, StartGame, StartMatch
from domain.engine import decide, evolve, play
from domain.events import GameStarted
from domain.gamefold import new_game
from domain.piles import ALL_PILES, HAND, SHOWN, WASTE
from domain.state import MatchState

AT = 1_000_000  # the wall clock of every position (ms); actions come at AT + 1000


def rules(preset: str = "classic", **options: Any) -> Ruleset:
    base = Ruleset.preset(preset)
    return replace(base, **options) if options else base


def parse_piles(text: str) -> dict[str, tuple[Card, ...]]:
    piles: dict[str, tuple[Card, ...]] = {}
    seen: set[Card] = set()
    for raw in text.strip().splitlines():
        line = raw.split("#")[0].strip()
        if not line:
            continue
        name, _, cards = line.partition(":")
        name = name.strip().upper()
        assert name in ALL_PILES, f"{name!r} is not a pile"
        owner = int(name[1]) if name[0] in "RHXW" else 0
        parsed = tuple(Card.parse(code, owner=owner) for code in cards.split())
        for card in parsed:
            assert card not in seen, f"{card} appears twice in the position"
            seen.add(card)
        piles[name] = parsed
    return piles


def position(
    text: str,
    ruleset: Ruleset | str = "classic",
    to_move: int = 0,
    totals: tuple[int, int] = (0, 0),
    wins: tuple[int, int] = (0, 0),
    **state: Any,
) -> MatchState:
    """A match whose running game is at this position, seat `to_move` at the start of a turn."""
    if isinstance(ruleset, str):
        ruleset = rules(ruleset)
    match = evolve(None, decide(None, StartMatch("m-test", ruleset, ("Ann", "Bob"), AT))[0])
    started = decide(match, StartGame("0" * 64, None, AT))[0]
    assert isinstance(started, GameStarted)
    started = replace(started, first_player=to_move)
    game = new_game(ruleset, started)
    piles = parse_piles(text)
    p = tuple(piles.get(name, ()) for name in ALL_PILES)
    loose = len(p[HAND[to_move]]) + len(p[SHOWN[to_move]]) + len(p[WASTE[to_move]])
    game = game._evolved(
        p=p, to_move=to_move, turn_start_cards=loose, seen=frozenset({p[8:16]}), **state
    )
    return replace(match, game=game, version=2, totals=totals, wins=wins, previous_first=to_move)


def action(state: MatchState, text: str, seat: int | None = None) -> Action:
    if seat is None:
        assert state.game is not None
        seat = state.game.to_move
    return parse_action(text, seat)


def act(state: MatchState, text: str, seat: int | None = None, at: int = AT + 1000) -> Any:
    """(events, new state) of one action in RECORDS.md §2 notation, for `seat` (default: mover)."""
    events, new = play(state, Act(action(state, text, seat), at))
    return events, new


def acts(state: MatchState, *texts: str) -> tuple[list[Any], MatchState]:
    """Several actions of the player to move (whoever that is after each), events concatenated."""
    all_events: list[Any] = []
    for text in texts:
        events, state = act(state, text)
        all_events.extend(events)
    return all_events, state


def refused(state: MatchState, text: str, seat: int | None = None) -> RulesError:
    with pytest.raises(RulesError) as caught:
        act(state, text, seat)
    return caught.value


def pile(state: MatchState, name: str) -> str:
    """A pile as codes bottom to top, like the position text (owner shown when not seat 0's)."""
    assert state.game is not None
    return " ".join(card.code if card.owner == 0 else str(card) for card in state.game.pile(name))


def kinds(events: Iterable[Any]) -> list[str]:
    return [type(event).__name__ for event in events]


def of_kind(events: Iterable[Any], kind: str) -> list[Any]:
    return [event for event in events if type(event).__name__ == kind]


def legal_texts(state: MatchState, seat: int | None = None) -> set[str]:
    from domain.engine import legal_actions

    assert state.game is not None
    if seat is None:
        seat = state.game.to_move
    return {a.notation() for a in legal_actions(state, seat)}
