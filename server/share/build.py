"""The shared artefacts built from a match in the store: what a read worker runs for the kinds
`html`, `gif` and `png` (server/workers.py), and what `crapette export --format html` writes.
Each folds the match as the replay does and draws from its frames' views only."""

from __future__ import annotations

from typing import Any

from eventstore import EventStore
from server import patches
from server.errors import NotFoundError
from server.knowledge import seat_options
from server.matches import MatchEntry, MatchRepository
from server.replays import replay_of
from server.share.html import replay_html


def held(store: EventStore, match_id: str, version: int | None = None) -> MatchEntry:
    """The match loaded from the store as the server loads it, holding at least `version`
    events (None: as many as it has)."""
    entry = MatchRepository(store, lambda _m, _a: None).get(match_id)
    if entry is None:
        raise NotFoundError(f"There is no table {match_id}.")
    if version is not None and entry.version < version:
        raise NotFoundError(f"The match has only {entry.version} events, not {version}.")
    return entry


def html_file(store: EventStore, match_id: str, version: int | None, source_url: str | None) -> str:
    """The replay file of the match's first `version` events (None: all of them)."""
    entry = held(store, match_id, version)
    return _html(store, entry, entry.version if version is None else version, source_url)


def _html(store: EventStore, entry: MatchEntry, upto: int, source_url: str | None) -> str:
    from server.records.export import export_match

    match_id = entry.match_id
    replay = patches.loads(replay_of(entry, upto).body)
    # What each seat could do, at the positions of the finished games only (seat_options).
    now = MatchRepository.state_at(entry, upto)
    options: dict[str, Any] = {
        str(seat): seat_options(MatchRepository.states_between(entry, 0, upto), now, seat)
        for seat in (0, 1)
    }
    record = export_match(store, match_id, upto=upto)
    return replay_html(replay, options, record, source_url)


def _live(entry: MatchEntry, upto: int) -> bool:
    now = MatchRepository.state_at(entry, upto)
    return now is not None and not now.finished


# -- the read workers' builds: (body, whether the match was still in play) ---------------------


def build_html(store: EventStore, job: dict[str, Any]) -> tuple[bytes, bool]:
    entry = held(store, job["match_id"], job["version"])
    body = _html(store, entry, job["version"], job.get("source_url"))
    return body.encode(), _live(entry, job["version"])
