"""The server's fast paths give what the slow paths they shortcut give."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from marshmallow import ValidationError

from server.entrypoints import schemas

_TEXT = st.one_of(
    st.text(max_size=140),
    st.text(alphabet="abcXYZ019_-.:\n", max_size=90),
    st.sampled_from(["m-0123456789\n", "x" * 7, "x" * 8, "x" * 64, "x" * 65, "x" * 128, "x" * 129]),
)
_VALUE = st.one_of(_TEXT, st.none(), st.integers(), st.booleans(), st.lists(st.integers()))
# Each field is often valid, so that most payloads differ from a good command in one field.
_FIELD = {
    "match_id": st.one_of(st.just("m-0123456789"), _TEXT, _VALUE),
    "seat_token": st.one_of(st.just("t" * 32), _TEXT, _VALUE),
    "command_id": st.one_of(st.just("c" * 32), _TEXT, _VALUE),
    "action": st.one_of(
        st.just({"do": "turn", "seat": 0}),
        st.dictionaries(st.text(max_size=5), _VALUE, max_size=4),
        st.dictionaries(st.integers(), _VALUE, max_size=2),
        _VALUE,
    ),
}


@st.composite
def _payloads(draw: Any) -> Any:
    keys = set(_FIELD) if draw(st.booleans()) else draw(st.sets(st.sampled_from([*_FIELD, "x"])))
    return {key: draw(_FIELD.get(key, _VALUE)) for key in keys}


def _slow(payload: Any) -> dict[str, Any] | None:
    try:
        result: dict[str, Any] = schemas.COMMAND.load(payload)
    except ValidationError:
        return None
    return result


@pytest.mark.slow
@settings(max_examples=1000, deadline=None)
@given(_payloads())
def test_a_well_formed_command_is_what_marshmallow_loads(payload: Any) -> None:
    fast = schemas.well_formed_command(payload)
    if fast is not None:
        assert fast == _slow(payload)


def test_the_fast_path_takes_a_plain_command_and_leaves_the_rest() -> None:
    good = {
        "match_id": "m-0123456789",
        "seat_token": "t" * 32,
        "command_id": "c" * 32,
        "action": {"do": "turn", "seat": 0},
    }
    assert schemas.well_formed_command(good) == _slow(good) == good
    for bad in (
        {**good, "extra": 1},
        {**good, "match_id": "-m-0123456789"},
        {**good, "seat_token": "short"},
        {**good, "command_id": None},
        {**good, "action": [1]},
        [good],
    ):
        assert schemas.well_formed_command(bad) is None


def test_the_updates_of_one_event_share_a_public_view_and_each_is_its_viewers_own() -> None:
    """`update_payloads` builds a position's public view once for every room; each payload is
    still what that viewer's own view (`domain.view`) and redaction give, whatever the others."""
    for preset in ("beginner", "italian-three-hands", "italian-two-reserves"):
        _check_update_payloads(preset)


def _check_update_payloads(preset: str) -> None:
    import random

    import domain
    from bench.engine import game_seed, random_game
    from server.readmodels.updates import update_payloads

    played = random_game(domain.PRESETS[preset], game_seed(preset, 5), random.Random(5))
    state = None
    seen_legal = False
    viewers = (0, 1, None)
    # Every event of a whole game, its end included (every card shown then).
    for version, event in enumerate(played.events, start=1):
        state = domain.evolve(state, event)
        for final in (True, False):
            payloads = update_payloads("m-x", version, event, state, viewers, final, at_ms=9)
            for viewer, payload in zip(viewers, payloads, strict=True):
                view = domain.view(state, viewer).to_json()
                if not final:
                    view["legal"] = []
                assert payload == {
                    "match_id": "m-x",
                    "version": version,
                    "at_ms": 9,
                    "event": domain.redact(event, viewer, state),
                    "view": view,
                }
                seen_legal = seen_legal or bool(view["legal"])
    assert state is not None and state.game is not None and state.game.over, preset
    assert seen_legal, preset  # the seats' legal actions were compared too
