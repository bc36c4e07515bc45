"""A refusal names its message (`reason`) and the cards and piles it mentions (`params`), so that
a client can say it in its own language (issue 19); the English `message` is unchanged."""

from __future__ import annotations

import pytest

from domain import RulesError
from tests.unit.domain.rules_kit import position, refused, rules

LENIENT = rules(enforcement="lenient")


@pytest.mark.parametrize(
    ("layout", "action", "reason", "params"),
    [
        ("R0=9D T0=6S", "T1-T0", "pile_empty", {"pile": "T1"}),
        ("R0=9D F0=AS,2S T0=3H", "F0-T0", "foundation_never_moves", {}),
        ("R0=9D W1=5H T0=6S", "W1-T0", "opponents_pile", {"pile": "W1"}),
        ("R0=9D H0=5H T0=6S", "H0-T0", "hand_face_down", {}),
        ("R0=9D W0=5H T0=6S", "W0-T0", "waste_not_playable", {}),
        ("R0=5H T0=9S", "R0-F0", "empty_foundation_ace", {"card": "5H"}),
        (
            "R0=5H F0=AH,2H",
            "R0-F0",
            "foundation_needs",
            {"pile": "F0", "need": "3H", "card": "5H"},
        ),
        ("R0=5H T0=6D", "R0-T0", "colours_alternate", {"card": "5H", "top": "6D"}),
        ("R0=5H T0=8S", "R0-T0", "house_down_one", {"card": "5H", "top": "8S"}),
        ("R0=5H R1=9S", "R0-R1", "load_same_suit", {"card": "5H", "top": "9S"}),
        ("R0=5H T0=9S", "R0-W0", "discard_only", {}),
    ],
)
def test_a_building_refusal_names_its_reason_and_params(
    layout: str, action: str, reason: str, params: dict[str, str]
) -> None:
    error = refused(position(layout, LENIENT), action)
    assert (error.reason, error.params) == (reason, params), error.message
    for value in params.values():
        assert str(value) in error.message  # the English sentence says the same things


def test_a_rule_with_one_message_is_its_own_reason() -> None:
    assert RulesError("not your turn", "it is your opponent's turn").reason == "not_your_turn"
    error = RulesError("priority: Aces to the foundations first", "…")
    assert error.reason == "priority_aces_to_the_foundations_first" and error.params == {}
