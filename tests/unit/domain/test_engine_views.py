"""Views and redaction: what each seat and a spectator may see, before and after the game."""

from __future__ import annotations

import json

from domain import (
    Act,
    CardMoved,
    GameStarted,
    MatchState,
    Ruleset,
    StartGame,
    StartMatch,
    decide_and_fold,
    legal_actions,
    parse_action,
    position_from_text,
    redact,
    view,
)
from domain.deal import commitment

SEED = "00" * 32


def started(ruleset: Ruleset | None = None) -> tuple[list[object], MatchState]:
    events, state = decide_and_fold(
        None, StartMatch("m-1", ruleset or Ruleset(), ("Ann", "Bob"), 5)
    )
    more, state = decide_and_fold(state, StartGame(SEED, None, 10))
    return [*events, *more], state


def test_view_json_has_the_contract_keys() -> None:
    _, state = started()
    data = view(state, 0).to_json()
    for key in [
        "match_id",
        "game_index",
        "version",
        "viewer",
        "ruleset",
        "preset",
        "players",
        "totals",
        "game_scores",
        "to_move",
        "turn_number",
        "over",
        "result",
        "commitment",
        "seed",
        "piles",
        "last_action",
        "call_window",
        "clock",
        "legal",
    ]:
        assert key in data
    assert data["preset"] == "classic" and data["players"] == ["Ann", "Bob"]
    assert data["commitment"] == commitment(SEED) and data["seed"] is None
    assert json.loads(json.dumps(data)) == data
    assert len(data["piles"]) == 24


def test_face_down_cards_are_null_and_counted() -> None:
    _, state = started()
    assert state.game is not None
    for viewer in (0, 1, None):
        piles = view(state, viewer).to_json()["piles"]
        assert piles["R0"][:-1] == [None] * 12 and piles["R0"][-1] == str(state.game.pile("R0")[-1])
        assert piles["H1"] == [None] * 35
        assert all(c is not None for c in piles["T0"])


def test_legal_is_the_viewers_own() -> None:
    _, state = started()
    assert state.game is not None
    mover = state.game.to_move
    mine = view(state, mover).to_json()["legal"]
    assert [a["text"] for a in mine] == [a.notation() for a in legal_actions(state, mover)]
    assert all(a["seat"] == mover for a in mine)
    assert view(state, None).to_json()["legal"] == []
    assert view(state, 1 - mover).to_json()["legal"] == []


def test_call_window_and_last_action_never_tell_a_fault() -> None:
    state = position_from_text("R0=9D,AH T0=TH X0=2C F0=AC H0=3H H1=5C to=0")
    events, state = decide_and_fold(state, Act(parse_action("X0-F0", 0), 1))
    data = view(state, 1).to_json()
    assert data["call_window"] == {"open": True, "offender": 0, "action": "X0-F0"}
    assert data["last_action"] == {
        "do": "move",
        "seat": 0,
        "from": "X0",
        "to": "F0",
        "card": "2C/0",
    }
    assert "fault" not in json.dumps(data)
    moved = redact(events[0], 1)
    assert moved["type"] == "CardMoved" and moved["fault"] is None
    assert isinstance(events[0], CardMoved) and events[0].fault is not None


def test_everything_is_shown_once_the_game_is_over() -> None:
    events, state = started()
    assert state.game is not None
    resigned, state = decide_and_fold(state, Act(parse_action("resign", 0), 20))
    data = view(state, None).to_json()
    assert data["over"] and data["seed"] == SEED
    assert all(c is not None for pile in data["piles"].values() for c in pile)
    assert data["result"]["kind"] == "resign" and data["result"]["winner"] == 1
    start = next(e for e in events if isinstance(e, GameStarted))
    assert redact(start, 0)["seed"] is None
    assert redact(start, 0, state)["seed"] == SEED


def test_next_game_and_match_flow() -> None:
    ruleset = Ruleset.from_json({"match": "wins:2", "first_player": "alternate"})
    _, state = started(ruleset)
    assert state.game is not None
    first = state.game.first_player
    _, state = decide_and_fold(state, Act(parse_action("resign", 0), 20))
    assert not state.finished and state.wins == (0, 1)
    _, state = decide_and_fold(state, StartGame("11" * 32, None, 30))
    assert state.game is not None and state.game.game_index == 1
    assert state.game.first_player == 1 - first
    events, state = decide_and_fold(state, Act(parse_action("resign", 0), 40))
    assert [type(e).__name__ for e in events] == ["GameResigned", "MatchWon"]
    assert state.finished and state.winner == 1 and len(state.game_scores) == 2
    assert view(state, 0).to_json()["match_over"]
