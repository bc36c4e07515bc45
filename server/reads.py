"""Reading a match without changing it: the backlog a reconnecting client missed, the spectator
view at any version, and the replay of the whole match as frames. Every read first folds what
other writers appended (`repo.refresh`), except the backlog, which the socket handler reads
under the entry's lock right after joining."""

from __future__ import annotations

from server.errors import NotFoundError
from server.knowledge import analysis_json, seat_options
from server.matches import Applied, MatchEntry, MatchRepository
from server.payloads import JsonObject, Replay, ViewAt
from server.updates import replay_frame, view_json


class Reads:
    def __init__(self, repo: MatchRepository) -> None:
        self.repo = repo

    def history(self, entry: MatchEntry, after_version: int) -> list[Applied]:
        """The events after `after_version` with the state after each (for a reconnect)."""
        return self.repo.replay_states(entry)[after_version:]

    def view_at(self, match_id: str, version: int | None) -> ViewAt:
        """The spectator's view after `version` events (None: now)."""
        entry = self.repo.find(match_id)
        with entry.lock:
            self.repo.refresh(entry)
            current = entry.version
            if version is None or version == current:
                return {"version": current, "view": view_json(entry.state, None)}
            if version > current:
                raise NotFoundError(f"The match has only {current} events, not {version}.")
            if version == 0:
                return {"version": 0, "view": None}
            applied = self.repo.replay_states(entry)[version - 1]
        return {"version": version, "view": view_json(applied.state, None)}

    def replay(self, match_id: str) -> Replay:
        """Every event as a frame; a match still in play shows what a spectator may see."""
        entry = self.repo.find(match_id)
        with entry.lock:
            self.repo.refresh(entry)
            states = self.repo.replay_states(entry)
            # An imported match never goes on here, and its record held every card: all shown.
            finished = entry.state is not None and entry.state.finished
            live = not finished and not entry.table.imported
            now = entry.state
        return {
            "match_id": match_id,
            "live": live,
            "version": len(states),
            "players": [s.name for s in entry.table.seats],
            "ruleset": entry.table.ruleset,
            "frames": [
                replay_frame(a.version, a.at_ms, a.event, a.state, now, show_all=not live)
                for a in states
            ],
            "analysis": analysis_json(states),
        }

    def options(self, match_id: str, seat: int) -> JsonObject:
        """What `seat` could do at each position of the match's finished games."""
        entry = self.repo.find(match_id)
        with entry.lock:
            self.repo.refresh(entry)
            states = self.repo.replay_states(entry)
            now = entry.state
        return seat_options(states, now, seat)
