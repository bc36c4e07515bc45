"""Reading a match without changing it: the backlog a reconnecting client missed, the spectator
view at any version, the replay of the whole match, and a seat's options in its finished games.

Every read first folds what other writers appended (`repo.refresh`, under the entry's lock: a
short step), then does its heavy part without the lock: events and snapshots are only ever
appended, so a version once seen can be read while play goes on. A view at any version costs at
most SNAPSHOT_EVERY folds. The reads that fold a whole match (a replay, a record, a seat's
options) are built once per version of the match, in a worker process that reads the store
itself (server/adapters/workers.py), and kept in a bounded cache (server/readmodels/replays.py). A
client joining (`join`) enters the match's room and gets its backlog under the entry's lock, so that
no live update can slip between it and the next."""

from __future__ import annotations

from dataclasses import dataclass

from records.streams import MATCH_ID_PATTERN, match_stream, table_stream
from server.adapters.matches import Applied, MatchEntry, MatchRepository
from server.adapters.publisher import CatchUp, NoPublisher, Publisher
from server.adapters.workers import Job, ReadWorkers
from server.errors import NotFoundError, ReadRefusedError, quoted
from server.readmodels.builds import run_job
from server.readmodels.costs import check_html
from server.readmodels.knowledge import seat_options
from server.readmodels.replays import Built, ReadCache, ReplayBody, etag_of, paused, replay_of
from server.readmodels.updates import view_json
from server.runtime import patches
from server.runtime.pauses import pause_point
from server.wire.payloads import ViewAt

# A client that missed more events than this gets a snapshot instead of every update: the backlog
# is built and sent under the match's lock on the loop, and anyone may ask for one (join_table as
# a spectator with last_version 0). Measured (2026-12-01, a 3,000-event match, this 2-core
# machine under load): 100 updates cost ~4 ms to build and encode, 3,000 ~100 ms.
MAX_BACKLOG = 100
# The shared artefacts built in the heavy pool (seconds each), not the read pool.
HEAVY_KINDS = frozenset({"gif", "html"})


@dataclass(frozen=True)
class Joined:
    """Where `Reads.join` filed a client: the match's version it is now at, the seat it watches
    from (None: a spectator, or waiting), and the person's name (None: a spectator)."""

    version: int
    seat: int | None
    name: str | None


class Reads:
    """`workers`: the pool that builds replays, records and options off the event loop (None:
    in this process, replays and options in slices; records in one go)."""

    def __init__(
        self,
        repo: MatchRepository,
        publisher: Publisher | None = None,
        cache: ReadCache | None = None,
        workers: ReadWorkers | None = None,
        heavy: ReadWorkers | None = None,
    ) -> None:
        self.repo = repo
        self.publisher: Publisher = publisher if publisher is not None else NoPublisher()
        self.cache = cache if cache is not None else ReadCache()
        self.workers = workers
        # The pool of the builds that take seconds (GIF, one-file HTML), apart from the replays'
        # so that a page's replay never waits behind a drawing (None: the read pool).
        self.heavy = heavy if heavy is not None else workers

    def history(self, entry: MatchEntry, after_version: int) -> list[Applied]:
        """The events after `after_version` with the state after each (for a reconnect)."""
        return list(self.repo.states_between(entry, after_version, entry.version))

    def join(
        self, client: str, match_id: str, place: int | None, last_version: int | None
    ) -> Joined:
        """`client` joins the match as the person at `place` (`Table.people`; None: a
        spectator), from the seat that person has now (none while he waits at a rotation
        table), and is sent every update after `last_version`, or a snapshot when it has none,
        gives one this match never reached, or missed more than MAX_BACKLOG. Returns the
        match's version the client is now at, and the seat and name it was filed under.
        Without rotation a place is its seat."""
        entry = self.repo.find(match_id)
        with entry.lock:
            # What other processes wrote that this one has not folded yet (none, alone), folded
            # and sent to the room before this client enters it: its backlog below covers it.
            self.repo.refresh(entry)
            if last_version is None or not 0 <= entry.version - last_version <= MAX_BACKLOG:
                backlog = None
            else:
                backlog = self.history(entry, last_version)
            seat = None if place is None else entry.table.seat_of_place(place)
            person = None if place is None else (place, entry.table.people[place].name)
            catch_up = CatchUp(entry.version, entry.state, backlog)
            self.publisher.joined(client, match_id, seat, catch_up, person)
            return Joined(entry.version, seat, None if person is None else person[1])

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
        version = self._version(match_id)
        self.cache.forget_before(match_id, version)

        def make() -> ReplayBody:
            if self.workers is None:
                return replay_of(self.repo.find(match_id), version)
            answer = self.workers.run({"kind": "replay", "match_id": match_id, "version": version})
            return ReplayBody(match_id, version, answer.live, answer.body, answer.etag)

        # (Whether it is live, and what it shows, follows from the match at that version.)
        return self.cache.get_or_build(("replay", match_id, version, ""), make)

    def record(self, match_id: str, fmt: str) -> Built:
        """The match's record (`fmt`: "json" or "text") as `crapette export` writes
        it; a match still in play with public information only. Any match of the store, held
        in memory or not."""
        from records.errors import MatchNotFoundError, error_reply

        try:
            version = self.repo.store.stream_version(match_stream(match_id))
        except ValueError:  # a name no stream can have (StreamNameError)
            version = 0
        if not version:
            missing = MatchNotFoundError(f"there is no match {quoted(match_id)} in this store")
            raise ReadRefusedError(*reversed(error_reply(missing)))
        self.cache.forget_before(match_id, version)
        job = {"kind": "record", "match_id": match_id, "version": version, "format": fmt}
        return self.cache.get_or_build(("record", match_id, version, fmt), lambda: self._run(job))

    def options(self, match_id: str, seat: int) -> Built:
        """What `seat` could do at each position of the match's finished games (JSON)."""
        version = self._version(match_id)

        def make() -> Built:
            if self.workers is not None:
                job = {"kind": "options", "match_id": match_id, "version": version, "seat": seat}
                return self._run(job)
            entry = self.repo.find(match_id)
            now = self.repo.state_at(entry, version)
            states = self.repo.states_between(entry, 0, version)
            body = patches.dumps(seat_options(paused(states, pause_point()), now, seat)).encode()
            return Built(body, etag_of(body), now is not None and not now.finished)

        return self.cache.get_or_build(("options", match_id, version, str(seat)), make)

    def shared(self, kind: str, match_id: str, variant: str, **params: object) -> Built:
        """A shared artefact of the match as it stands (`kind`: html, gif, png;
        server/readmodels/share), built by a read worker once per version of the match and `variant`
        (what `params` ask for), like a record."""
        version = self._version(match_id)
        if kind == "html":
            check_html(version)  # before any work (server/readmodels/costs.py)
        self.cache.forget_before(match_id, version)
        job = {"kind": kind, "match_id": match_id, "version": version, **params}
        pool = self.heavy if kind in HEAVY_KINDS else self.workers
        return self.cache.get_or_build(
            (kind, match_id, version, variant), lambda: self._run(job, pool)
        )

    def _version(self, match_id: str) -> int:
        """The match's version now. A match this process holds is brought up to date (under
        its lock: a short step); one it does not hold is not loaded here, only asked of the
        store, when a worker builds (the worker loads it): reading an old match's replay
        neither folds it on the loop nor keeps it in memory."""
        if self.workers is None or self.repo.loaded(match_id):
            entry = self.repo.find(match_id)
            with entry.lock:
                self.repo.refresh(entry)
                return entry.version
        store = self.repo.store
        if not MATCH_ID_PATTERN.fullmatch(match_id) or not store.stream_version(
            table_stream(match_id)
        ):
            raise NotFoundError(f"There is no table {quoted(match_id)}.")
        return store.stream_version(match_stream(match_id))

    def _run(self, job: Job, pool: ReadWorkers | None = None) -> Built:
        pool = pool or self.workers
        answer = run_job(self.repo.store, job) if pool is None else pool.run(job)
        return Built(answer.body, answer.etag, answer.live)
