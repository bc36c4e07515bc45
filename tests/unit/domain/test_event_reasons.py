"""Reasons are closed sets (issue 27): every member reads back, any other value is refused."""

from __future__ import annotations

from typing import get_args

import pytest

from domain import Card, NotationError
from domain.events import (
    CLOSED_FIELDS,
    CardDiscarded,
    DiscardAuto,
    GameStalemated,
    GameWon,
    StalemateReason,
    TurnEnded,
    TurnEndReason,
    WinReason,
    event_from_payload,
    event_to_payload,
)


def test_the_closed_fields_are_the_literal_types() -> None:
    assert {
        TurnEnded: {"reason": frozenset(get_args(TurnEndReason))},
        CardDiscarded: {"auto": frozenset({*get_args(DiscardAuto), None})},
        GameWon: {"reason": frozenset(get_args(WinReason))},
        GameStalemated: {"reason": frozenset(get_args(StalemateReason))},
    } == CLOSED_FIELDS


@pytest.mark.parametrize("reason", get_args(TurnEndReason))
def test_every_turn_end_reason_round_trips(reason: TurnEndReason) -> None:
    event = TurnEnded(0, 1, reason, 5)
    assert event_from_payload(*event_to_payload(event)) == event


@pytest.mark.parametrize("auto", [*get_args(DiscardAuto), None])
def test_every_discard_auto_round_trips(auto: DiscardAuto | None) -> None:
    event = CardDiscarded(0, Card.parse("7H", owner=0), None, 5, auto)
    assert event_from_payload(*event_to_payload(event)) == event


@pytest.mark.parametrize("reason", get_args(StalemateReason))
def test_every_stalemate_reason_round_trips(reason: StalemateReason) -> None:
    event = GameStalemated((1, 2), (3, 4), reason, 5)
    assert event_from_payload(*event_to_payload(event)) == event


@pytest.mark.parametrize(
    ("kind", "payload"),
    [
        ("TurnEnded", {"seat": 0, "next_seat": 1, "reason": "bored", "at_ms": 5}),
        ("TurnEnded", {"seat": 0, "next_seat": 1, "at_ms": 5}),
        ("GameWon", {"winner": 0, "reason": "luck", "score": [1, 0], "at_ms": 5}),
        ("CardDiscarded", {"seat": 0, "card": "7H/0", "fault": None, "at_ms": 5, "auto": "x"}),
        (
            "GameStalemated",
            {"penalties": [0, 0], "score": [0, 0], "reason": "no progress", "at_ms": 5},
        ),
    ],
)
def test_an_unknown_reason_is_refused_by_name(kind: str, payload: dict[str, object]) -> None:
    with pytest.raises(NotationError, match=rf"unknown {kind} (reason|auto) .*\(one of: "):
        event_from_payload(kind, payload)
