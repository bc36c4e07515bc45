"""Replays as the browser downloads them: built off the table's lock in short slices, kept in a
bounded cache, and sent as events plus view changes instead of a whole view per event.

Format (docs/protocol.md § replay): every frame has `version`, `game_index`, `at_ms` and
`event`; a *keyframe* also has the whole trimmed spectator `view`, any other frame only `delta`,
what changed in that view since the previous frame (changed keys; under `piles` only the piles
that changed, `null` for a pile that is gone). Keyframes come at the first frame, at every new
deal (`GameStarted`) and every KEYFRAME_EVERY frames, so a client may decode from the nearest one.
For a 3,000-event match this is about a fifth of the old body (whole view per frame)."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import domain
from domain import MatchState
from domain.analysis import players_by_game
from server.adapters.matches import Applied, MatchEntry, MatchRepository
from server.readmodels.knowledge import analysis_json
from server.readmodels.updates import replay_frame
from server.runtime import patches
from server.runtime.pauses import pause_point
from server.wire.payloads import JsonObject, Replay

FORMAT = "crapette-replay/2"
KEYFRAME_EVERY = 100


def view_delta(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """What changed from `before` to `after` (two trimmed views, which have the same keys):
    keys whose value changed, `piles` only with the piles that changed (`null`: gone)."""
    delta: dict[str, Any] = {}
    for key, value in after.items():
        if key == "piles":
            old = before.get("piles") or {}
            piles = {name: cards for name, cards in value.items() if old.get(name) != cards}
            piles.update({name: None for name in old if name not in value})
            if piles:
                delta["piles"] = piles
        elif key not in before or before[key] != value:
            delta[key] = value
    return delta


def apply_delta(view: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
    """The view after `delta` (what web/js/replay.js does when it decodes a replay)."""
    result = {**view}
    for key, value in delta.items():
        if key == "piles":
            piles = {**view.get("piles", {})}
            for name, cards in value.items():
                if cards is None:
                    piles.pop(name, None)
                else:
                    piles[name] = cards
            result["piles"] = piles
        else:
            result[key] = value
    return result


def decode_frames(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every frame with its whole `view` (keyframes as they are, deltas applied)."""
    view: dict[str, Any] | None = None
    decoded = []
    for frame in frames:
        frame = {**frame}
        if "view" in frame:
            view = frame["view"]
        else:
            assert view is not None, "a delta frame before any keyframe"
            view = apply_delta(view, frame.pop("delta"))
            frame["view"] = view
        decoded.append(frame)
    return decoded


def frame_of(
    applied: Applied, before: JsonObject | None, now: MatchState | None, show_all: bool
) -> tuple[JsonObject, JsonObject | None]:
    """One step's frame (a keyframe, or what changed since the view `before`) and its view."""
    version, event = applied.version, applied.event
    frame: JsonObject = {
        **replay_frame(version, applied.at_ms, event, applied.state, now, show_all=show_all)
    }
    view = frame["view"]
    keyframe = (
        before is None
        or view is None
        or isinstance(event, domain.GameStarted)
        or version % KEYFRAME_EVERY == 1
    )
    if not keyframe:
        assert before is not None and view is not None
        frame["delta"] = view_delta(before, frame.pop("view"))
    return frame, view


def frames(
    states: Iterable[Applied], now: MatchState | None, show_all: bool
) -> Iterator[JsonObject]:
    """The frames of these (version, event, state) steps, judged against the match state `now`:
    keyframes with the whole view, the others with what changed."""
    before: JsonObject | None = None
    for applied in states:
        frame, before = frame_of(applied, before, now, show_all)
        yield frame


def paused(items: Iterable[Applied], pause: Callable[[], None]) -> Iterator[Applied]:
    """The items, calling `pause()` after each (a long read in slices)."""
    for item in items:
        yield item
        pause()


@dataclass(frozen=True)
class ReplayBody:
    """One replay body as sent: JSON bytes and their strong ETag (unquoted: a digest of them)."""

    match_id: str
    version: int
    live: bool
    body: bytes
    etag: str

    def data(self) -> dict[str, Any]:
        """The replay with every frame's view decoded (as the browser has it after loading)."""
        data: dict[str, Any] = patches.loads(self.body)
        data["frames"] = decode_frames(data["frames"])
        return data


def build(
    entry: MatchEntry,
    upto: int,
    now: MatchState | None,
    live: bool,
    players: list[str | None],
    ruleset: JsonObject,
    pause: Callable[[], None] | None = None,
) -> ReplayBody:
    """The replay of the first `upto` events of a match held in memory, folded from the start
    in slices of server.runtime.pauses.SLICE_S (`pause`: what to call between two events; default
    `pause_point()`).
    Used when no read worker runs (server/adapters/workers.py builds from the store instead)."""
    states = MatchRepository.states_between(entry, 0, upto)
    return encode(entry.match_id, states, upto, now, live, players, ruleset, pause or pause_point())


def replay_of(entry: MatchEntry, upto: int, pause: Callable[[], None] | None = None) -> ReplayBody:
    """The replay of the first `upto` events of a match held in memory, as its table says:
    an imported match never goes on here, and its record held every card: all shown."""
    now = MatchRepository.state_at(entry, upto)
    live = not (now is not None and now.finished) and not entry.table.imported
    players = [seat.name for seat in entry.table.seats]
    return build(entry, upto, now, live, players, entry.table.ruleset, pause)


def encode(
    match_id: str,
    states: Iterable[Applied],
    upto: int,
    now: MatchState | None,
    live: bool,
    players: list[str | None],
    ruleset: JsonObject,
    pause: Callable[[], None] = lambda: None,
) -> ReplayBody:
    """The replay of these first `upto` steps with the analysis of its finished games
    (server/readmodels/knowledge.py), in one pass. Each frame is encoded as soon as it is made and
    each state dropped once read: a build that kept them all made the collector's full passes stop
    the loop for 0.3-0.8 s when it ran in the server process."""
    encoded: list[str] = []
    events: list[domain.Event] = []
    before: list[JsonObject | None] = [None]

    def framed(states: Iterable[Applied]) -> Iterator[Applied]:
        for applied in states:
            frame, before[0] = frame_of(applied, before[0], now, show_all=not live)
            encoded.append(patches.dumps(frame))
            events.append(applied.event)
            yield applied
            pause()

    analysis = analysis_json(framed(states))
    document: Replay = {
        "match_id": match_id,
        "format": FORMAT,
        "live": live,
        "version": upto,
        "keyframe_every": KEYFRAME_EVERY,
        "players": players,
        "ruleset": ruleset,
        "analysis": analysis,
    }
    if ruleset.get("rotation", "off") != "off":  # docs/spec/rules.md §10: seats change hands
        document["pairs"] = [list(pair) for pair in players_by_game(events)]
    head = patches.dumps(document)
    body = f'{head[:-1]},"frames":[{",".join(encoded)}]}}'.encode()
    return ReplayBody(match_id, upto, live, body, etag_of(body))


def etag_of(body: bytes) -> str:
    """A strong ETag for these bytes (unquoted): a digest, the same in every process."""
    return hashlib.sha256(body).hexdigest()[:32]


@dataclass(frozen=True)
class Built:
    """Another read built once per version and cached like a replay (a record, a seat's
    options): its bytes, their strong ETag, and whether the match was still in play."""

    body: bytes
    etag: str
    live: bool

    def data(self) -> Any:
        """The body read back (a JSON body)."""
        return patches.loads(self.body)


class HasBody(Protocol):
    @property
    def body(self) -> bytes: ...


B = TypeVar("B", bound=HasBody)
# (kind, match id, version, variant): e.g. ("replay", "m-1", 300, "live"), ("record", …, "text").
CacheKey = tuple[str, str, int, str]


class ReadCache:
    """Built reads (replays, records, options) by key, least recently used dropped first once
    the bodies pass `max_bytes`. Each is built once per version of its match: a finished
    match's once. Two requests for the same key while it is being built wait for the one
    build; a failed build is not kept (the next request tries again)."""

    def __init__(self, max_bytes: int = 64 * 1024 * 1024) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[CacheKey, HasBody] = OrderedDict()
        self._size = 0
        self._building: dict[CacheKey, threading.Event] = {}
        self._lock = threading.Lock()
        self.builds = 0  # how many reads were built (tests, benchmarks)

    def get_or_build(self, key: CacheKey, make: Callable[[], B]) -> B:
        while True:
            with self._lock:
                found = self._items.get(key)
                if found is not None:
                    self._items.move_to_end(key)
                    return found  # type: ignore[return-value]  # the key's kind says its type
                waiting = self._building.get(key)
                if waiting is None:
                    done = self._building[key] = threading.Event()
                    break
            waiting.wait(60)
        try:
            built = make()
            with self._lock:
                self.builds += 1
                self._put(key, built)
            return built
        finally:
            with self._lock:
                del self._building[key]
            done.set()

    def _put(self, key: CacheKey, built: HasBody) -> None:
        if len(built.body) > self.max_bytes:
            return
        self._items[key] = built
        self._size += len(built.body)
        while self._size > self.max_bytes:
            _, dropped = self._items.popitem(last=False)
            self._size -= len(dropped.body)

    def forget_before(self, match_id: str, version: int) -> None:
        """Drop what was built of a match at a version before `version` (nobody asks for an
        old version again: a request always gets the newest)."""
        with self._lock:
            for key in [k for k in self._items if k[1] == match_id and k[2] < version]:
                self._size -= len(self._items.pop(key).body)
