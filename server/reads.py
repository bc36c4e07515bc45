"""Reading a match without changing it: the backlog a reconnecting client missed, the spectator
view at any version, the replay of the whole match, and a seat's options in its finished games.

Every read first folds what other writers appended (`repo.refresh`, under the entry's lock: a
short step), then does its heavy part without the lock: events and snapshots are only ever
appended, so a version once seen can be read while play goes on. A view at any version costs at
most SNAPSHOT_EVERY folds; a replay is built in slices that let other greenthreads run and is
cached (server/replays.py). A client joining (`join`) enters the match's room and gets its
backlog under the entry's lock, so that no live update can slip between it and the next."""

from __future__ import annotations

from server.errors import NotFoundError
from server.knowledge import seat_options
from server.matches import Applied, MatchEntry, MatchRepository
from server.payloads import JsonObject, ViewAt
from server.publisher import CatchUp, NoPublisher, Publisher
from server.replays import ReplayBody, ReplayCache, build, pause_point, paused
from server.updates import view_json


class Reads:
    def __init__(
        self,
        repo: MatchRepository,
        publisher: Publisher | None = None,
        cache: ReplayCache | None = None,
    ) -> None:
        self.repo = repo
        self.publisher: Publisher = publisher if publisher is not None else NoPublisher()
        self.cache = cache if cache is not None else ReplayCache()

    def history(self, entry: MatchEntry, after_version: int) -> list[Applied]:
        """The events after `after_version` with the state after each (for a reconnect)."""
        return list(self.repo.states_between(entry, after_version, entry.version))

    def join(self, client: str, match_id: str, place: int | None, last_version: int | None) -> int:
        """`client` joins the match as the person at `place` (`Table.people`; None: a
        spectator), from the seat that person has now (none while he waits at a rotation
        table), and is sent every update after `last_version`, or a snapshot when it has none
        or gives one this match never reached. Returns the match's version the client is now
        at. Without rotation a place is its seat."""
        entry = self.repo.find(match_id)
        with entry.lock:
            # What other processes wrote that this one has not folded yet (none, alone), folded
            # and sent to the room before this client enters it: its backlog below covers it.
            self.repo.refresh(entry)
            if last_version is None or last_version > entry.version:
                backlog = None
            else:
                backlog = self.history(entry, last_version)
            seat = None if place is None else entry.table.seat_of_place(place)
            person = None if place is None else (place, entry.table.people[place].name)
            catch_up = CatchUp(entry.version, entry.state, backlog)
            self.publisher.joined(client, match_id, seat, catch_up, person)
            return entry.version

    def view_at(self, match_id: str, version: int | None) -> ViewAt:
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

    def replay(self, match_id: str) -> ReplayBody:
        """Every event as a frame; a match still in play shows what a spectator may see."""
        entry = self.repo.find(match_id)
        with entry.lock:
            self.repo.refresh(entry)
            version, now = entry.version, entry.state
            # An imported match never goes on here, and its record held every card: all shown.
            finished = now is not None and now.finished
            live = not finished and not entry.table.imported
            players = [s.name for s in entry.table.seats]
            ruleset = entry.table.ruleset
        if not live:
            self.cache.forget_live(match_id)
        return self.cache.get_or_build(
            (match_id, version, live), lambda: build(entry, version, now, live, players, ruleset)
        )

    def options(self, match_id: str, seat: int) -> JsonObject:
        """What `seat` could do at each position of the match's finished games."""
        entry = self.repo.find(match_id)
        with entry.lock:
            self.repo.refresh(entry)
            version, now = entry.version, entry.state
        states = self.repo.states_between(entry, 0, version)
        return seat_options(paused(states, pause_point()), now, seat)
