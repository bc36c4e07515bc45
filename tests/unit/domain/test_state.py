"""Game and match states: immutable, and every copy carries every field."""

from __future__ import annotations

import pytest

from domain.positions import position_from_text
from domain.state import _FIELDS, GameState


def test_a_copy_carries_every_field_and_stays_immutable() -> None:
    match = position_from_text("R0=9D,5H T0=6S H1=3C to=1")
    game = match.game
    assert game is not None
    copy = game._evolved(turn_number=7)
    # Every declared field is filled in (a field the copy forgot would raise here).
    for name in _FIELDS:
        getattr(copy, name)
    assert type(copy) is GameState
    assert copy.turn_number == 7 and copy.p == game.p and copy.to_move == 1
    assert copy != game and copy._evolved(turn_number=game.turn_number) == game
    with pytest.raises(AttributeError):
        copy.turn_number = 8


def test_a_match_copy_changes_only_its_game_and_version() -> None:
    match = position_from_text("R0=9D,5H T0=6S H1=3C")
    game = match.game
    assert game is not None
    moved = match.with_game(game._evolved(turn_number=2), match.version + 1)
    assert moved[:-2] == match[:-2]
    assert moved.version == match.version + 1 and moved.game is not None
    with pytest.raises(AttributeError):
        moved.version = 1  # type: ignore[misc]
