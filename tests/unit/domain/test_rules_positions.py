"""Positions with hand-derived legal actions (tests/data/positions/legal_actions.json), in the
manner of python-chess's perft files: each names its rule point and the complete legal list."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from domain import Ruleset
from domain.engine import legal_actions
from domain.positions import position_from_text, position_to_text

DATA = Path(__file__).resolve().parents[2] / "data" / "positions" / "legal_actions.json"
CASES: list[dict[str, Any]] = json.loads(DATA.read_text())


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_legal_actions_of_the_position(case: dict[str, Any]) -> None:
    state = position_from_text(case["position"], Ruleset.from_json(case["rules"]))
    assert state.game is not None
    seat = state.game.to_move
    found = sorted(action.notation() for action in legal_actions(state, seat))
    assert found == sorted(case["legal"])


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_position_text_reads_back_the_same(case: dict[str, Any]) -> None:
    ruleset = Ruleset.from_json(case["rules"])
    state = position_from_text(case["position"], ruleset)
    again = position_from_text(position_to_text(state), ruleset)
    assert again.game is not None and state.game is not None
    assert again.game.p == state.game.p and again.game.to_move == state.game.to_move
