"""docs/spec/rules.md §9: every option value not covered elsewhere, and every preset's values."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from domain import PRESETS, Ruleset, RulesetError
from domain.commands import StartGame, StartMatch
from domain.engine import decide, fold
from tests.unit.domain.rules_kit import act, kinds, legal_texts, pile, position, refused, rules

QUIET = "T0=KS T1=KH T2=KD T3=KC T4=KS/1 T5=KH/1 T6=KD/1 T7=KC/1"

# docs/spec/rules.md §9's preset table: the values that differ from classic.
PRESET_TABLE: dict[str, dict[str, object]] = {
    "classic": {},
    "g4a": {"enforcement": "enforce", "match": "points:150"},
    "danish": {
        "empty_house": "refill_at_once",
        "waste_playable": "after_hand_empty",
        "discard_rule": "only_if_unplayable",
    },
    "italian": {},
    "finnish": {
        "reserve_size": 12,
        "priorities": "finnish",
        "empty_house": "reserve_first",
        "hand_card_lock": "on",
        "move_time_limit_s": 10,
        "match": "points:200",
        "first_player": "high_cut",
    },
    "french": {
        "houses_per_player": 2,
        "first_player": "high_cut",
        "waste_playable": "always",
        "priorities": "french6",
        "discard_rule": "only_if_unplayable",
        "win": "reserve_hand",
        "match": "wins:3",
    },
    "beginner": {"enforcement": "lenient"},
    "italian-two-reserves": {"reserves_per_player": 2},
    "italian-three-hands": {"hands_per_player": 3},
    "italian-four": {"rotation": "winner_out"},
}


@pytest.mark.parametrize("name", list(PRESET_TABLE))
def test_preset_values_follow_the_rules_table(name: str) -> None:
    assert Ruleset.preset(name) == replace(Ruleset(), **PRESET_TABLE[name])  # type: ignore[arg-type]


def test_every_preset_is_in_the_table() -> None:
    assert set(PRESETS) == set(PRESET_TABLE)


def test_unknown_option_value_is_refused() -> None:
    with pytest.raises(RulesetError):
        unknown: Any = "queen_only"  # not an EmptyHouse: the check at run time is the point
        Ruleset(empty_house=unknown)
    with pytest.raises(RulesetError):
        Ruleset(reserve_size=9)


# --- reserve_size and houses_per_player in a dealt game ------------------------------------------


@pytest.mark.parametrize("size", [13, 12, 11, 10])
def test_reserve_size_deals_that_many_reserve_cards(size: int) -> None:
    ruleset = Ruleset(reserve_size=size)
    match = fold(decide(None, StartMatch("m", ruleset, ("a", "b"), 0)))
    state = fold(decide(match, StartGame("0" * 64, None, 0)), match)
    assert state.game is not None
    assert len(state.game.pile("R0")) == len(state.game.pile("R1")) == size
    assert len(state.game.pile("H0")) == 52 - size - 4


def test_two_houses_per_player_deals_t0_t1_t4_t5_only() -> None:
    ruleset = Ruleset(houses_per_player=2)
    match = fold(decide(None, StartMatch("m", ruleset, ("a", "b"), 0)))
    state = fold(decide(match, StartGame("0" * 64, None, 0)), match)
    assert state.game is not None
    houses = sorted(name for name in state.game.piles if name.startswith("T"))
    assert houses == ["T0", "T1", "T4", "T5"]
    assert len(state.game.pile("H0")) == 52 - 13 - 2


def test_two_houses_per_player_refuses_the_missing_houses() -> None:
    state = position("R0=9D,5H T0=KS T1=6S T4=KS/1 T5=KH/1", rules(houses_per_player=2))
    assert refused(state, "R0-T2").rule == "no such pile"
    assert not any("T2" in text or "T6" in text for text in legal_texts(state))


# --- waste_playable ---------------------------------------------------------------------------


def test_waste_playable_always() -> None:
    state = position(f"R0=9D H0=2C W0=8C,QS {QUIET}", rules(waste_playable="always"))
    _, after = act(state, "W0-T1")
    assert pile(after, "T1") == "KH QS" and pile(after, "W0") == "8C"


def test_waste_playable_after_hand_empty_waits_for_the_hand() -> None:
    ruleset = rules(waste_playable="after_hand_empty")
    state = position(f"R0=9D H0=2C W0=8C,QS {QUIET}", ruleset)
    assert refused(state, "W0-T1").rule == "not available"
    state = position(f"R0=9D W0=8C,QS {QUIET}", ruleset)
    _, after = act(state, "W0-T1")
    assert pile(after, "T1") == "KH QS"


def test_waste_playable_counts_for_the_c2_priority() -> None:
    ruleset = rules(waste_playable="always", enforcement="enforce")
    state = position(f"R0=9D H0=5C W0=8C,2H F0=AH {QUIET}", ruleset)
    assert legal_texts(state) == {"W0-F0"}


# --- empty_house ------------------------------------------------------------------------------

EMPTY_T3 = "R0=9D,5H X0=7C T0=KS T1=KH T2=KD T4=KS/1,QH/1 T5=KH/1 T6=KD/1 T7=KC/1"


def test_empty_house_king_only() -> None:
    state = position(EMPTY_T3.replace("X0=7C", "X0=KC"), rules(empty_house="king_only"))
    assert refused(state, "R0-T3").rule == "building"
    _, after = act(state, "X0-T3")
    assert pile(after, "T3") == "KC"


def test_empty_house_reserve_first_while_the_reserve_lasts() -> None:
    ruleset = rules(empty_house="reserve_first", enforcement="lenient")
    state = position(EMPTY_T3, ruleset)
    assert refused(state, "X0-T3").rule == "building"
    assert refused(state, "T4-T3").rule == "building"
    _, after = act(state, "R0-T3")
    assert pile(after, "T3") == "5H"


def test_empty_house_reserve_first_any_card_once_the_reserve_is_gone() -> None:
    ruleset = rules(empty_house="reserve_first", enforcement="lenient")
    state = position(EMPTY_T3.replace("R0=9D,5H", ""), ruleset)
    _, after = act(state, "X0-T3")
    assert pile(after, "T3") == "7C"


# T3's 2H goes to F0, emptying T3 during the mover's turn (the houses refill_at_once is about,
# docs/spec/rules.md §11); then T4's 3H/1 could go to F0 too.
EMPTIED_T3 = EMPTY_T3.replace("QH/1", "3H/1") + " T3=2H F0=AH"


def test_empty_house_refill_at_once_comes_before_everything() -> None:
    ruleset = rules(empty_house="refill_at_once", enforcement="enforce")
    # 3H on T4 could go to F0, but the emptied T3 must be filled from the reserve first.
    _, state = act(position(EMPTIED_T3, ruleset), "T3-F0")
    assert legal_texts(state) == {"R0-T3"}
    rule = refused(state, "T4-F0").rule
    assert rule == "priority: fill the empty house from your reserve first"


# --- danish preset together -------------------------------------------------------------------


def test_danish_preset_runs_its_three_options_together() -> None:
    danish = rules("danish", enforcement="enforce")
    state = position(f"R0=9D X0=5H W0=8C,QS R1=6H {QUIET}", danish)
    assert refused(state, "discard").rule == "discard: the hand card can still be played"
    _, state = act(state, "X0-R1")
    _, state = act(state, "W0-T1")  # hand and X empty: the waste is playable
    assert pile(state, "T1") == "KH QS"


def test_finnish_preset_turned_unplayable_card_is_discarded_at_once() -> None:
    finnish = rules("finnish")
    events, _ = act(position(f"R0=9D H0=2C,3C {QUIET}", finnish), "turn")
    assert kinds(events) == ["HandCardTurned", "CardDiscarded", "TurnEnded"]


@pytest.mark.parametrize("priorities", ["finnish", "french6"])
def test_empty_house_refill_at_once_under_every_priority_order(priorities: str) -> None:
    ruleset = rules(empty_house="refill_at_once", enforcement="enforce", priorities=priorities)
    _, state = act(position(EMPTIED_T3, ruleset), "T3-F0")
    assert legal_texts(state) == {"R0-T3"}
