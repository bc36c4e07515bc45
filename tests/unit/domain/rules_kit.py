"""Helpers of the rule scenario tests: build a position, act on it, read the events.

Every rule test uses these helpers and writes its position in the notation of docs/positions.md
(`domain.position_from_text`), piles separated by spaces, cards bottom to top:

    "R0=9D,3S T0=KS,QH/1 F0=AS,2S"   (3S is seat 0's reserve top; QH/1 is seat 1's)

Cards of R/H/X/W piles belong to that pile's seat unless written otherwise; a house's or a
foundation's to seat 0; unnamed piles are empty. Positions need not hold all 104 cards: a rule is
about the cards it touches.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import pytest

from domain import RulesError, Ruleset
from domain.actions import Action, parse_action
from domain.commands import Act
from domain.engine import decide_and_fold
from domain.positions import position_from_text
from domain.state import MatchState

AT = 0  # the wall clock of every position (ms); actions come at AT + 1000


def rules(preset: str = "classic", **options: Any) -> Ruleset:
    base = Ruleset.preset(preset)
    return replace(base, **options) if options else base


def position(
    text: str,
    ruleset: Ruleset | str = "classic",
    to_move: int = 0,
    totals: tuple[int, int] = (0, 0),
    wins: tuple[int, int] = (0, 0),
    **state: Any,
) -> MatchState:
    """A match whose running game is at this position, seat `to_move` at the start of a turn.

    `state` overrides game bookkeeping (such as `quiet_turns`) that no text layout can say.
    """
    if isinstance(ruleset, str):
        ruleset = rules(ruleset)
    if ": " in text or "\n" in text.strip():
        raise ValueError(
            f"write positions in docs/positions.md notation ('R0=9D,5H T0=6S'), not {text!r}"
        )
    # The text may say whose turn it is itself (`to=1`); otherwise `to_move` does.
    match = position_from_text(text if "to=" in text else f"{text} to={to_move}", ruleset)
    game = match.game
    assert game is not None
    if state:
        game = game._evolved(**state)
    return match._replace(game=game, totals=totals, wins=wins)


def action(state: MatchState, text: str, seat: int | None = None) -> Action:
    if seat is None:
        assert state.game is not None
        seat = state.game.to_move
    return parse_action(text, seat)


def act(state: MatchState, text: str, seat: int | None = None, at: int = AT + 1000) -> Any:
    """(events, new state) of one action in docs/spec/records.md §2 notation, for `seat` (default:
    mover)."""
    events, new = decide_and_fold(state, Act(action(state, text, seat), at))
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
