"""Stores with a history, written straight through the event store for the server benchmark:
a long live match (for clients that loop on its replay) and many finished matches (for the
start-up figures). The matches are played by the engine with random legal actions, so they are
real matches the server folds like any other."""

from __future__ import annotations

import random
import time

import domain
from domain.actions import AcceptDraw, Call, OfferDraw, Resign, TimeOut
from domain.commands import Act, StartGame, StartMatch
from domain.engine import decide_and_fold, legal_actions
from eventstore import ConcurrencyError, EventStore, NewEvent
from records import streams
from server.model import tables as t

_NOT_PLAYED = (Resign, OfferDraw, AcceptDraw, TimeOut, Call)


def _table(store: EventStore, match_id: str, ruleset: domain.Ruleset, at_ms: int) -> None:
    opened = {
        "match_id": match_id,
        "ruleset": ruleset.to_json(),
        "preset": ruleset.name,
        "at_ms": at_ms,
        "rematch_of": None,
    }
    batch = [NewEvent(type=t.TABLE_OPENED, data=opened)]
    for seat, name in enumerate(("Ann", "Bob")):
        token_hash = t.hash_token(f"bench-token-{match_id}-{seat}")
        taken = {"seat": seat, "name": name, "token_hash": token_hash, "at_ms": at_ms}
        batch.append(NewEvent(type=t.SEAT_TAKEN, data=taken))
    store.append(streams.table_stream(match_id), batch, expected_version=0)


def _played(
    match_id: str, ruleset: domain.Ruleset, events: int, rng: random.Random, resign: bool
) -> list[domain.Event]:
    """A match of at least `events` events of random legal play (`resign`: then seat 0
    resigns, which ends a match of one game to win)."""
    at_ms = int(time.time() * 1000)
    made, state = decide_and_fold(None, StartMatch(match_id, ruleset, ("Ann", "Bob"), at_ms))
    while len(made) < events:
        game = state.game
        if game is None or game.over:
            seed = f"{rng.getrandbits(256):064x}"
            new, state = decide_and_fold(state, StartGame(seed, None, at_ms))
        else:
            choices = [
                a for a in legal_actions(state, game.to_move) if not isinstance(a, _NOT_PLAYED)
            ]
            new, state = decide_and_fold(state, Act(rng.choice(choices), at_ms))
        made += new
    if resign:
        game = state.game
        assert game is not None and not game.over
        new, state = decide_and_fold(state, Act(Resign(seat=game.to_move), at_ms))
        made += new
        assert state.finished, "a resignation ends a match of one game to win"
    return made


def _append_match(store: EventStore, match_id: str, events: list[domain.Event]) -> None:
    batch = []
    for index, event in enumerate(events):
        kind, data = domain.event_to_payload(event)
        metadata = {"command_id": f"bench-{index}"}
        batch.append(NewEvent(type=kind, data=data, metadata=metadata))
    for start in range(0, len(batch), 500):
        store.append(
            streams.match_stream(match_id), batch[start : start + 500], expected_version=start
        )


def long_live_match(store: EventStore, events: int = 3000, seed: int = 1) -> str:
    """A match still in play with about `events` events (a target no game reaches soon)."""
    return long_match_going_on(store, events, 0, seed)[0]


def long_match_going_on(
    store: EventStore, events: int, later: int, seed: int = 1
) -> tuple[str, list[domain.Event]]:
    """`long_live_match`, and `later` more events of its play, to append one by one while a
    benchmark runs (`append_later`): each makes a new version, so each read is a new build."""
    match_id = "m-benchlong0"
    ruleset = domain.Ruleset.from_json({"preset": "classic", "match": "points:100000"})
    _table(store, match_id, ruleset, int(time.time() * 1000))
    played = _played(match_id, ruleset, events + later, random.Random(seed), False)
    _append_match(store, match_id, played[:events])
    return match_id, played[events:]


def append_later(store: EventStore, match_id: str, event: domain.Event) -> bool:
    """Append one more event of the match as another writer would; False if the stream moved
    meanwhile (the server dealt a game itself): the caller stops there."""
    kind, data = domain.event_to_payload(event)
    version = store.stream_version(streams.match_stream(match_id))
    try:
        store.append(streams.match_stream(match_id), [NewEvent(type=kind, data=data)], version)
    except ConcurrencyError:
        return False
    return True


def finished_matches(store: EventStore, count: int, events: int = 450, seed: int = 2) -> int:
    """`count` finished matches of about `events` events each; the store's events in all."""
    rng = random.Random(seed)
    ruleset = domain.Ruleset.from_json({"preset": "classic", "match": "wins:1"})
    at_ms = int(time.time() * 1000) - 86_400_000  # played yesterday
    for index in range(count):
        match_id = f"m-old{index:06d}"
        _table(store, match_id, ruleset, at_ms)
        _append_match(store, match_id, _played(match_id, ruleset, events, rng, True))
    return store.last_position()
