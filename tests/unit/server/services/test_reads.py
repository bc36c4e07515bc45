"""Bounded reads: the state at any version from snapshots, the replay as keyframes plus view
changes (decoding it gives back the whole view of every frame), and the replay cache."""

from __future__ import annotations

import functools
import json
import random

import pytest

import domain
from bench.engine import game_seed, random_game
from eventstore import open_store
from server.adapters.matches import SNAPSHOT_EVERY, MatchEntry, MatchRepository
from server.model.tables import TABLE_OPENED, evolve_table
from server.readmodels.replays import KEYFRAME_EVERY, ReadCache, build, decode_frames, view_delta
from server.readmodels.updates import replay_frame, view_json


def _entry(events: int = 700) -> MatchEntry:
    """A match entry holding the first `events` events of a random classic game."""
    played = random_game(domain.PRESETS["classic"], game_seed("classic", 3), random.Random(3))
    assert len(played.events) >= events
    opened = {"match_id": "m-reads", "ruleset": {}, "preset": "classic", "at_ms": 0}
    entry = MatchEntry(match_id="m-reads", table=evolve_table(None, TABLE_OPENED, opened))
    repo = MatchRepository(open_store("memory://"), lambda _m, _a: None)
    for event in played.events[:events]:
        repo._apply(entry, event, {})
    return entry


@pytest.fixture(scope="module")
def entry() -> MatchEntry:
    return _entry()


def test_snapshots_every_k_events_and_the_state_at_any_version(entry: MatchEntry) -> None:
    assert sorted(entry.snapshots) == list(range(SNAPSHOT_EVERY, entry.version + 1, SNAPSHOT_EVERY))
    state = None
    for version, event in enumerate(entry.events, start=1):
        state = domain.evolve(state, event)
        if version % 7 == 0 or version % SNAPSHOT_EVERY in (0, 1, SNAPSHOT_EVERY - 1):
            assert view_json(MatchRepository.state_at(entry, version), None) == view_json(
                state, None
            )
    assert MatchRepository.state_at(entry, 0) is None


def test_a_backlog_is_the_events_with_their_states(entry: MatchEntry) -> None:
    after = 3 * SNAPSHOT_EVERY + 17
    backlog = list(MatchRepository.states_between(entry, after, after + 60))
    assert [a.version for a in backlog] == list(range(after + 1, after + 61))
    for applied in backlog:
        assert applied.event is entry.events[applied.version - 1]
        expected = MatchRepository.state_at(entry, applied.version)
        assert view_json(applied.state, None) == view_json(expected, None)


@pytest.mark.parametrize("live", [True, False])
def test_the_replay_decodes_to_the_whole_view_of_every_frame(entry: MatchEntry, live: bool) -> None:
    replay = build(entry, entry.version, entry.state, live, ["a", "b"], {})
    sent = json.loads(replay.body)
    assert sent["format"] == "crapette-replay/2" and sent["version"] == entry.version
    keyframes = [f["version"] for f in sent["frames"] if "view" in f]
    assert keyframes[:2] == [1, 2]  # MatchStarted (no view yet), then the deal
    assert all(v in keyframes for v in range(KEYFRAME_EVERY + 1, entry.version, KEYFRAME_EVERY))
    # Decoded, every frame is what the server used to send whole.
    state, whole = None, []
    for version, event in enumerate(entry.events, start=1):
        state = domain.evolve(state, event)
        whole.append(
            replay_frame(version, event.at_ms, event, state, entry.state, show_all=not live)
        )
    whole = json.loads(json.dumps(whole))  # as JSON has it (tuples are lists)
    assert decode_frames(sent["frames"]) == whole
    assert replay.data()["frames"] == whole
    # ... and it is much smaller than that.
    assert len(replay.body) < 0.4 * len(json.dumps({"frames": whole}))


def test_a_delta_names_only_what_changed() -> None:
    before = {"piles": {"R0": ["AS/0"], "F0": []}, "to_move": 0, "result": None}
    after = {"piles": {"R0": [], "F0": ["AS/0"]}, "to_move": 0, "result": None}
    assert view_delta(before, after) == {"piles": {"R0": [], "F0": ["AS/0"]}}
    after = {"piles": {"R0": ["AS/0"]}, "to_move": 1, "result": {"winner": 0}}
    assert view_delta(before, after) == {
        "piles": {"F0": None},
        "to_move": 1,
        "result": {"winner": 0},
    }


def test_the_cache_builds_once_and_stays_within_its_bytes(entry: MatchEntry) -> None:
    cache = ReadCache()
    make = lambda: build(entry, entry.version, entry.state, False, [], {})  # noqa: E731
    first = cache.get_or_build(("replay", "m-reads", entry.version, "all"), make)
    again = cache.get_or_build(("replay", "m-reads", entry.version, "all"), make)
    assert again is first and cache.builds == 1
    small = ReadCache(max_bytes=len(first.body) // 2)  # less than the three below
    for version in (100, 200, 300):
        small.get_or_build(
            ("replay", "m-reads", version, "live"),
            functools.partial(build, entry, version, None, True, [], {}),
        )
    assert small._size <= small.max_bytes
    assert ("replay", "m-reads", 100, "live") not in small._items  # the oldest went first
    kept = set(small._items)
    small.forget_before("m-other", 1000)  # another match's: nothing of this one goes
    assert set(small._items) == kept
    small.forget_before("m-reads", 300)  # older versions go, the newest stays
    assert set(small._items) == {("replay", "m-reads", 300, "live")}


def test_a_client_far_behind_gets_a_snapshot_not_every_update() -> None:
    """The backlog is built under the match's lock on the loop, and anyone may ask for one: past
    MAX_BACKLOG missed versions the client gets the current position instead."""
    from bench.history import long_live_match
    from server.service import GameService
    from server.services.reads import MAX_BACKLOG
    from tests.unit.server.services.test_service_wiring import RecordingPublisher

    store = open_store("memory://")
    match_id = long_live_match(store, MAX_BACKLOG + 50)
    publisher = RecordingPublisher()
    service = GameService(store, publisher=publisher)
    top = service.repo.find(match_id).version
    last: int | None
    for last, backlog in ((top - MAX_BACKLOG, MAX_BACKLOG), (top - 1, 1), (top, 0)):
        assert service.reads.join("sid", match_id, None, last).version == top
        catch_up = publisher.joins[-1][3]
        assert catch_up.backlog is not None and len(catch_up.backlog) == backlog
    for last in (top - MAX_BACKLOG - 1, 0, None, top + 1):
        service.reads.join("sid", match_id, None, last)
        catch_up = publisher.joins[-1][3]
        assert catch_up.backlog is None and catch_up.version == top, last
