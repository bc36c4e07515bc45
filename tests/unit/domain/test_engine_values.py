"""Value objects of the engine: cards, rulesets, actions, events — parse, print, round trip."""

from __future__ import annotations

import random

import pytest

from domain import (
    PRESET_DESCRIPTIONS,
    PRESETS,
    Act,
    Call,
    Card,
    Move,
    NotationError,
    Ruleset,
    RulesetError,
    StartGame,
    StartMatch,
    action_from_json,
    decide_and_fold,
    event_from_payload,
    event_to_payload,
    legal_actions,
    parse_action,
)


def test_card_parse_and_print() -> None:
    card = Card.parse("7H/1")
    assert (card.rank, card.suit, card.owner) == (7, "H", 1)
    assert str(card) == "7H/1" and card.code == "7H"
    assert Card.parse("7h", owner=1) is card
    assert Card.parse("10D").code == "TD"
    assert Card.parse("AS").owner == 0
    assert card.red and Card.parse("KC").black


@pytest.mark.parametrize("text", ["", "1H", "7X", "7H/2", "ZZ", "7H7"])
def test_card_parse_refuses_nonsense(text: str) -> None:
    with pytest.raises(NotationError):
        Card.parse(text)


def test_cards_are_interned_and_immutable() -> None:
    assert Card(12, "S", 0) is Card.parse("QS")
    with pytest.raises(AttributeError):
        Card.parse("QS").rank = 3


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_round_trips_through_json(name: str) -> None:
    ruleset = Ruleset.preset(name)
    data = ruleset.to_json()
    assert data["preset"] == name
    back = Ruleset.from_json(data)
    assert back == ruleset and back.name == name
    assert name in PRESET_DESCRIPTIONS


def test_preset_values_follow_rules_md() -> None:
    assert Ruleset.preset("finnish").reserve_size == 12
    assert Ruleset.preset("finnish").move_time_limit_s == 10
    assert Ruleset.preset("french").houses_per_player == 2
    assert Ruleset.preset("french").match == "wins:3"
    assert Ruleset.preset("g4a").enforcement == "enforce"
    assert Ruleset.preset("danish").empty_house == "refill_at_once"
    assert Ruleset.preset("beginner").enforcement == "lenient"
    assert Ruleset.preset("italian") == Ruleset()


def test_ruleset_overrides_over_a_preset() -> None:
    ruleset = Ruleset.from_json({"preset": "danish", "match": "wins:2"})
    assert ruleset.match == "wins:2" and ruleset.empty_house == "refill_at_once"
    assert (ruleset.match_kind, ruleset.match_target) == ("wins", 2)


@pytest.mark.parametrize(
    "data",
    [
        {"colour": "red"},
        {"reserve_size": 9},
        {"houses_per_player": 3},
        {"priorities": "german"},
        {"match": "points:0"},
        {"match": "goals:3"},
        {"move_time_limit_s": -1},
        {"preset": "klondike"},
    ],
)
def test_ruleset_refuses_unknown_options_and_values(data: dict[str, object]) -> None:
    with pytest.raises(RulesetError):
        Ruleset.from_json(data)


@pytest.mark.parametrize(
    "text",
    [
        "T3-F0",
        "T3-F0 AS",
        "turn",
        "discard",
        "pass",
        "crapette",
        "crapette R1-F2",
        "resign",
        "offer-draw",
        "accept-draw",
        "time-out",
    ],
)
def test_action_text_and_json_round_trip(text: str) -> None:
    action = parse_action(text, 1)
    assert action.notation() == text
    assert action_from_json(action.to_json()) == action
    assert action.to_json()["seat"] == 1


def test_action_json_matches_records_md() -> None:
    move = parse_action("T3-F0", 0)
    assert move.to_json() == {"do": "move", "seat": 0, "from": "T3", "to": "F0"}
    assert parse_action("crapette R1-F2", 0).to_json() == {"do": "call", "seat": 0, "move": "R1-F2"}
    assert isinstance(parse_action("crapette", 1), Call)
    assert action_from_json({"do": "move", "seat": 0, "from": "t3", "to": "f0"}) == Move(
        0, "T3", "F0"
    )


@pytest.mark.parametrize("text", ["T3", "T3-Q9", "T3-F0-F1", "jump", "turn now", "crapette X"])
def test_action_parse_refuses_nonsense(text: str) -> None:
    with pytest.raises(NotationError):
        parse_action(text, 0)


def test_every_event_of_a_game_round_trips_through_its_payload() -> None:
    import json

    rng = random.Random(7)
    events, state = decide_and_fold(None, StartMatch("m", Ruleset(), ("A", "B"), 0))
    more, state = decide_and_fold(state, StartGame("ab" * 32, None, 1))
    events += more
    at = 2
    assert state.game is not None
    while not state.game.over:
        seat = state.game.to_move
        choices = legal_actions(state, seat) + legal_actions(state, 1 - seat)
        at += 1
        more, state = decide_and_fold(state, Act(rng.choice(choices), at))
        events += more
    kinds = set()
    for event in events:
        kind, payload = event_to_payload(event)
        kinds.add(kind)
        assert event_from_payload(kind, json.loads(json.dumps(payload))) == event
    assert {"MatchStarted", "GameStarted", "CardMoved", "TurnEnded", "CrapetteCalled"} <= kinds


def test_event_from_payload_refuses_unknown_types() -> None:
    with pytest.raises(NotationError):
        event_from_payload("CardTeleported", {})


def test_action_names_are_every_do_the_json_form_reads() -> None:
    from domain import ACTION_NAMES, action_from_json

    extra = {"move": {"from": "R0", "to": "F0"}, "call": {}}
    for name in ACTION_NAMES:
        action = action_from_json({"do": name, "seat": 0, **extra.get(name, {})})
        assert action.to_json()["do"] == name
    with pytest.raises(NotationError):
        action_from_json({"do": "fly", "seat": 0})


def test_unknown_ruleset_options_are_quoted_and_at_most_five_named() -> None:
    """A 200 KB made-up key came back whole (issue 28 review): each key is quoted and cut, and
    at most five are named."""
    from domain.errors import QUOTE_CHARS

    with pytest.raises(RulesetError) as one:
        Ruleset.from_json({"k" * 200_000: 1})
    assert len(str(one.value)) < 100
    assert str(one.value).startswith("unknown ruleset option(s): 'kkk")
    many = {f"bad{n}": 1 for n in range(12)}
    with pytest.raises(RulesetError) as twelve:
        Ruleset.from_json({**many, "x\n" * 100: 2})
    message = str(twelve.value)
    assert message.count("'bad") == 5 and message.endswith(" and 8 more")
    assert "\n" not in message and len(message) < 5 * (QUOTE_CHARS + 4) + 60
