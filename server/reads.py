"""Reading a match without changing it: the backlog a reconnecting client missed, the spectator
view at any version, and the replay of the whole match. Every read first folds what other
writers appended (`repo.refresh`, under the entry's lock: a short step), then does its heavy
part without the lock: events and snapshots are only ever appended, so a version once seen can
be read while play goes on. A view at any version costs at most SNAPSHOT_EVERY folds; a replay
is built in slices that let other greenthreads run (server/replays.py) and cached."""

from __future__ import annotations

from typing import Any

from server.errors import NotFoundError
from server.matches import Applied, MatchEntry, MatchRepository
from server.replays import Replay, ReplayCache, build
from server.updates import view_json


class Reads:
    def __init__(self, repo: MatchRepository, cache: ReplayCache | None = None) -> None:
        self.repo = repo
        self.cache = cache if cache is not None else ReplayCache()

    def history(self, entry: MatchEntry, after_version: int) -> list[Applied]:
        """The events after `after_version` with the state after each (for a reconnect)."""
        return list(self.repo.states_between(entry, after_version, entry.version))

    def view_at(self, match_id: str, version: int | None) -> dict[str, Any]:
        """The spectator's view after `version` events (None: now)."""
        entry = self.repo.find(match_id)
        with entry.lock:
            self.repo.refresh(entry)
            current, state = entry.version, entry.state
        if version is None or version == current:
            return {"version": current, "view": view_json(state, None)}
        if version > current:
            raise NotFoundError(f"The match has only {current} events, not {version}.")
        return {"version": version, "view": view_json(self.repo.state_at(entry, version), None)}

    def replay(self, match_id: str) -> Replay:
        """Every event as a frame; a match still in play shows what a spectator may see."""
        entry = self.repo.find(match_id)
        with entry.lock:
            self.repo.refresh(entry)
            version, now = entry.version, entry.state
            # An imported match never goes on here, and its record held every card: all shown.
            finished = now is not None and now.finished
            live = not finished and not entry.table.imported
            header = {
                "match_id": match_id,
                "players": [s.name for s in entry.table.seats],
                "ruleset": entry.table.ruleset,
            }
        if not live:
            self.cache.forget_live(match_id)
        return self.cache.get_or_build(
            (match_id, version, live), lambda: build(entry, version, now, live, header)
        )
