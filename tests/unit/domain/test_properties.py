"""Properties of every reachable position (hypothesis drives random play over random deals):
104 cards always accounted for, no card in two places, foundations that only grow by suit and
rank, a fold that is deterministic and equal to what `decide_and_fold` returned, views that never
show a hidden card or the seed while the game runs."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain import PRESETS, Card, RulesError, Ruleset
from domain.actions import (
    PLAY_ACTIONS,
    Action,
    Call,
    Discard,
    Move,
    OfferDraw,
    Pass,
    Resign,
    TimeOut,
    Turn,
)
from domain.commands import Act, StartGame, StartMatch
from domain.engine import decide_and_fold, fault_of, fold, legal_actions
from domain.events import (
    ActionVoided,
    CrapetteCalled,
    GameStarted,
    event_from_payload,
    event_to_payload,
)
from domain.piles import HAND_SET, RESERVE, SECOND_RESERVE
from domain.state import MatchState
from domain.views import redact, view

ALL_CARDS = frozenset(
    Card(rank, suit, owner) for rank in range(1, 14) for suit in "SHDC" for owner in (0, 1)
)
SKIPPED = (Resign, OfferDraw, TimeOut)


def start(preset: str, seed: str) -> tuple[list[Any], MatchState]:
    events, state = decide_and_fold(
        None, StartMatch("m-prop", Ruleset.preset(preset), ("a", "b"), 0)
    )
    more, state = decide_and_fold(state, StartGame(seed, None, 0))
    return events + more, state


def choose(state: MatchState, rng: random.Random) -> Action | None:
    game = state.game
    assert game is not None
    seat = game.to_move
    if rng.random() < 0.3:
        calls = [a for a in legal_actions(state, 1 - seat) if isinstance(a, Call)]
        if calls:
            return calls[0]
    choices = [a for a in legal_actions(state, seat) if not isinstance(a, SKIPPED)]
    return rng.choice(choices) if choices else None


def check_cards(state: MatchState) -> None:
    game = state.game
    assert game is not None
    cards = [card for pile in game.p for card in pile]
    assert len(cards) == 104, f"{len(cards)} cards on the table"
    assert len(set(cards)) == 104, "a card is in two places"
    assert set(cards) == ALL_CARDS


def foundations(state: MatchState) -> list[tuple[Card, ...]]:
    assert state.game is not None
    return [state.game.pile(f"F{i}") for i in range(8)]


def check_foundation_order(state: MatchState) -> None:
    for pile in foundations(state):
        for position, card in enumerate(pile):
            assert card.rank == position + 1 and card.suit == pile[0].suit, pile


def check_views(state: MatchState, seed: str) -> None:
    game = state.game
    assert game is not None
    hidden = {str(card) for hand in HAND_SET for card in game.p[hand]}  # I, J: three hands
    hidden |= {str(card) for seat in (0, 1) for card in game.p[RESERVE[seat]][:-1]}
    hidden |= {str(card) for seat in (0, 1) for card in game.p[SECOND_RESERVE[seat]][:-1]}
    for viewer in (0, 1, None):
        data = view(state, viewer).to_json()
        text = json.dumps(data)
        if game.over:
            assert data["seed"] == seed
            continue
        assert data["seed"] is None and seed not in text
        hands = "HIJ" if game.ruleset.hands_per_player == 3 else "H"
        for seat in (0, 1):
            for kind in hands:  # face-down counts only, pile by pile
                shown = data["piles"][f"{kind}{seat}"]
                assert shown == [None] * len(game.pile(f"{kind}{seat}"))
            assert all(c is None for c in data["piles"][f"R{seat}"][:-1])
        leaked = {card for card in hidden if f'"{card}"' in text}
        assert not leaked, f"viewer {viewer} sees {leaked}"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(sorted(PRESETS)),
    seed=st.binary(min_size=32, max_size=32).map(bytes.hex),
    choices=st.integers(0, 2**32),
    steps=st.integers(1, 250),
)
def test_random_play_keeps_every_invariant(
    preset: str, seed: str, choices: int, steps: int
) -> None:
    rng = random.Random(choices)
    events, state = start(preset, seed)
    check_cards(state)
    for _ in range(steps):
        game = state.game
        assert game is not None
        if game.over:
            break
        action = choose(state, rng)
        assert action is not None, "a running game always offers its mover an action"
        before = foundations(state)
        previous = state
        new_events, state = decide_and_fold(state, Act(action, 0))
        events.extend(new_events)
        if isinstance(action, Call):
            window = game.window
            right = window is not None and window.fault is not None
            assert isinstance(new_events[0], CrapetteCalled)
            assert new_events[0].verdict == ("right" if right else "wrong")
            if not right:  # a wrong call changes nothing but the call count
                assert state.game is not None and previous.game is not None
                assert state.game.piles == previous.game.piles
                assert state.game.to_move == previous.game.to_move
        check_cards(state)
        check_foundation_order(state)
        if not any(isinstance(e, ActionVoided) for e in new_events):
            for old, new in zip(before, foundations(state), strict=True):
                assert new[: len(old)] == old, "a foundation lost a card without a voiding"
        check_views(state, seed)
    # Folding the same events twice gives the same state, and the one `decide_and_fold` returned.
    once, twice = fold(events), fold(events)
    assert once == twice == state
    # Every event survives its stored JSON form, and folds to the same state from it.
    stored = [event_to_payload(e) for e in events]
    loaded = [event_from_payload(kind, json.loads(json.dumps(data))) for kind, data in stored]
    assert loaded == events and fold(loaded) == state


@settings(max_examples=10, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32).map(bytes.hex), preset=st.sampled_from(["classic"]))
def test_game_started_is_redacted_while_the_game_runs(seed: str, preset: str) -> None:
    events, state = start(preset, seed)
    started = next(e for e in events if isinstance(e, GameStarted))
    for viewer in (0, 1, None):
        payload = redact(started, viewer, state)
        assert payload.get("seed") is None and payload.get("packs") is None
        assert seed not in json.dumps(payload)


@settings(max_examples=10, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32).map(bytes.hex))
def test_fold_is_deterministic_for_a_whole_game(seed: str) -> None:
    rng = random.Random(seed)
    events, state = start("classic", seed)
    while state.game is not None and not state.game.over and len(events) < 3000:
        action = choose(state, rng)
        assert action is not None
        new_events, state = decide_and_fold(state, Act(action, 0))
        events.extend(new_events)
    assert fold(events) == fold(list(events)) == state


def every_play_action(seat: int, piles: list[str]) -> list[Action]:
    moves: list[Action] = [Move(seat, src, dst) for src in piles for dst in piles]
    # A turn naming any hand of either seat, I and J included whether or not they exist
    # (three hands, docs/spec/rules.md §10): only the mover's own hands with cards are accepted.
    hands = [f"{kind}{s}" for kind in "HIJ" for s in (0, 1)]
    named: list[Action] = [Turn(seat, hand) for hand in hands]
    return [*moves, Turn(seat), *named, Discard(seat), Pass(seat)]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(sorted(PRESETS)),
    seed=st.binary(min_size=32, max_size=32).map(bytes.hex),
    choices=st.integers(0, 2**32),
    steps=st.integers(0, 150),
)
def test_legal_actions_are_exactly_what_decide_accepts(
    preset: str, seed: str, choices: int, steps: int
) -> None:
    """At a random position: every play action decide accepts is listed, and nothing else; each
    accepted action's recorded fault is `fault_of`'s, and `enforce` records none."""
    rng = random.Random(choices)
    _, state = start(preset, seed)
    for _ in range(steps):
        game = state.game
        assert game is not None
        if game.over:
            return
        action = choose(state, rng)
        assert action is not None
        _, state = decide_and_fold(state, Act(action, 0))
    game = state.game
    assert game is not None
    if game.over:
        return
    seat = game.to_move
    listed = {a for a in legal_actions(state, seat) if isinstance(a, PLAY_ACTIONS)}
    accepted = set()
    for candidate in every_play_action(seat, list(game.piles)):
        try:
            events, _ = decide_and_fold(state, Act(candidate, 0))
        except RulesError:
            continue
        accepted.add(candidate)
        recorded = getattr(events[0], "fault", None)
        expected = fault_of(state, candidate)
        if game.ruleset.enforcement == "call":
            assert recorded == expected, candidate
        else:
            assert recorded is None, candidate
            if game.ruleset.enforcement == "enforce":
                assert expected is None, candidate
    assert listed == accepted


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(["classic", "danish", "finnish", "french", "italian"]),
    seed=st.binary(min_size=32, max_size=32).map(bytes.hex),
    choices=st.integers(0, 2**32),
)
def test_right_call_restores_the_position_before_the_fault_plus_the_compulsory_move(
    preset: str, seed: str, choices: int
) -> None:
    rng = random.Random(choices)
    _, state = start(preset, seed)
    before_last: MatchState = state
    for _ in range(400):
        game = state.game
        assert game is not None
        if game.over:
            return
        seat = game.to_move
        calls = [a for a in legal_actions(state, 1 - seat) if isinstance(a, Call)]
        window = game.window
        if calls and window is not None and window.fault is not None:
            events, after = decide_and_fold(state, Act(calls[0], 0))
            assert isinstance(events[0], CrapetteCalled)
            assert events[0].verdict == "right"
            check_right_call(before_last, events, after, window.offender)
            state = after
            before_last = state
            continue
        choices_ = [a for a in legal_actions(state, seat) if not isinstance(a, SKIPPED)]
        before_last = state
        _, state = decide_and_fold(state, Act(rng.choice(choices_), 0))


def check_right_call(
    before: MatchState, events: list[Any], after: MatchState, offender: int
) -> None:
    assert before.game is not None and after.game is not None
    expected = dict(before.game.piles)
    compulsory = [e for e in events if type(e).__name__ == "CompulsoryMovePlayed"]
    if compulsory:
        move = compulsory[0]
        # The compulsory move respects priority in the position before the fault.
        assert fault_of(before, Move(offender, move.src, move.dst)) is None
        card = expected[move.src][-1]
        assert card == move.card
        expected[move.src] = expected[move.src][:-1]
        expected[move.dst] = expected[move.dst] + (card,)
    x, w = f"X{offender}", f"W{offender}"
    names = [type(e).__name__ for e in events]
    # X goes to the waste unless the compulsory move already won (a discard may win too, under
    # `win=reserve_hand`, so a game over after the call does not mean X stayed).
    after_move = names[names.index("CompulsoryMovePlayed") + 1 :] if compulsory else []
    won_by_move = after_move[:1] == ["GameWon"]
    if expected[x] and not won_by_move:
        expected[w] = expected[w] + expected[x]
        expected[x] = ()
    assert after.game.piles == expected
    if not after.game.over:
        assert after.game.to_move == 1 - offender
