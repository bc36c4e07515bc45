"""The lobby's words for the ruleset options cover every option, and only values the rules take."""

from __future__ import annotations

import dataclasses

import pytest

import domain
from domain.ruleset import (
    CHOICES,
    HANDS_PER_PLAYER,
    HOUSES_PER_PLAYER,
    RESERVE_SIZES,
    RESERVES_PER_PLAYER,
)
from server.wire.ruleset_help import OPTIONS, options_json


def test_every_option_of_the_ruleset_is_explained_once() -> None:
    names = [option.name for option in OPTIONS]
    fields = [f.name for f in dataclasses.fields(domain.Ruleset) if f.name != "name"]
    assert sorted(names) == sorted(fields)
    for option in OPTIONS:
        assert option.label and option.help, option.name
        assert "\n" not in option.help and len(option.help) <= 100, option.name


@pytest.mark.parametrize("option", [o for o in OPTIONS if o.kind == "choice"], ids=lambda o: o.name)
def test_a_choice_lists_exactly_the_values_the_rules_allow(option: object) -> None:
    assert isinstance(option, type(OPTIONS[0]))
    allowed = {
        "reserve_size": RESERVE_SIZES,
        "houses_per_player": HOUSES_PER_PLAYER,
        "reserves_per_player": RESERVES_PER_PLAYER,
        "hands_per_player": HANDS_PER_PLAYER,
        **CHOICES,
    }
    values = [value for value, _ in option.values]
    assert values == list(allowed[option.name])  # same order: the classic value first
    assert all(label for _, label in option.values)


@pytest.mark.parametrize("option", OPTIONS, ids=lambda o: o.name)
def test_every_listed_value_is_one_a_table_accepts(option: object) -> None:
    assert isinstance(option, type(OPTIONS[0]))
    for value, _ in option.values:
        ruleset = domain.Ruleset.from_json({"preset": "classic", option.name: value})
        assert ruleset.to_json()[option.name] == value


def test_every_preset_value_can_be_shown() -> None:
    """The lobby prefills the form with a preset's values: each must be one of the listed ones
    (a match target or time limit of a preset that the list lacks would show as blank)."""
    by_name = {option.name: option for option in OPTIONS}
    for preset, ruleset in domain.PRESETS.items():
        for name, value in ruleset.to_json().items():
            if name == "preset":
                continue
            listed = [v for v, _ in by_name[name].values]
            assert value in listed, f"{preset}: {name}={value!r}"


def test_the_json_form_is_what_the_lobby_reads() -> None:
    data = options_json()
    assert data[0]["name"] == "match"
    assert data[1] == {
        "name": "move_time_limit_s",
        "label": "Time per move",
        "help": OPTIONS[1].help,
        "kind": "seconds",
        "values": [{"value": v, "label": label} for v, label in OPTIONS[1].values],
    }
