"""Player statistics over the store: games, wins, points, faults, calls, for every name seen.

Names are free text: whoever sat down as "Ann" is Ann, so two people who typed the same name
count as one player (docs/web.md says so to players). A name is compared exactly as typed. A
match counts once, however many times its record was imported (records.identity).

Only finished games count (a running game's faults are not public), and no game of a practice
table (played on from a finished match's position, server/services/practice.py: its table stream
says so). Each match is folded and analysed by `domain.analysis` once per stream version: a finished
match never changes, so an index kept by the server reads a big store in full only the first time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import domain
from domain.analysis import analyse, players_by_game
from eventstore import EventStore
from records.identity import dedup_key
from records.streams import MATCH_PREFIX, table_stream


def since_ms(text: str) -> int:
    """`--since` / `?since=`: an ISO date or date-time (UTC unless it says otherwise), in ms.
    ValueError when it is none."""
    when = datetime.fromisoformat(text)
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return int(when.timestamp() * 1000)


@dataclass(slots=True)
class PlayerStats:
    """One name's figures. `actions` counts play actions (moves, turns, discards, passes)."""

    name: str
    matches: int = 0
    matches_won: int = 0
    games: int = 0
    wins: int = 0
    points: int = 0
    actions: int = 0
    faults: int = 0
    right_calls: int = 0
    wrong_calls: int = 0
    missed_calls: int = 0
    to_foundations: int = 0
    last_played_ms: int = 0
    recent: list[dict[str, Any]] = field(default_factory=list)  # the latest matches, newest first

    @property
    def faults_per_100(self) -> float | None:
        return round(100 * self.faults / self.actions, 2) if self.actions else None

    @property
    def call_accuracy(self) -> float | None:
        """Right calls among all calls made (None: no call made)."""
        calls = self.right_calls + self.wrong_calls
        return round(self.right_calls / calls, 3) if calls else None

    def add(self, other: PlayerStats) -> None:
        for name in (
            "matches",
            "matches_won",
            "games",
            "wins",
            "points",
            "actions",
            "faults",
            "right_calls",
            "wrong_calls",
            "missed_calls",
            "to_foundations",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.last_played_ms = max(self.last_played_ms, other.last_played_ms)
        self.recent = sorted(self.recent + other.recent, key=lambda m: -m["started_at_ms"])[:20]

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "matches": self.matches,
            "matches_won": self.matches_won,
            "games": self.games,
            "wins": self.wins,
            "points": self.points,
            "actions": self.actions,
            "faults": self.faults,
            "faults_per_100_actions": self.faults_per_100,
            "right_calls": self.right_calls,
            "wrong_calls": self.wrong_calls,
            "call_accuracy": self.call_accuracy,
            "missed_calls": self.missed_calls,
            "to_foundations": self.to_foundations,
            "last_played_ms": self.last_played_ms,
            "recent": self.recent,
        }


def match_stats(match_id: str, events: list[domain.Event]) -> list[PlayerStats]:
    """Each player's figures in one match (its finished games only); [] for no match. At a
    rotation table (docs/spec/rules.md §10) each person counts the games he played, in whatever
    seat; his `recent` entry names his last seat, opponent and their session totals."""
    if not events or not isinstance(events[0], domain.MatchStarted):
        return []
    started: domain.MatchStarted = events[0]
    analysis = analyse(events)
    pairs = players_by_game(events)
    last = events[-1]
    finished = isinstance(last, domain.MatchWon)
    # The people of the match by id: its two seats, and at a rotation table everyone who
    # queued, found by name there (names differ at such a table; two seats elsewhere may share
    # one, and each seat stays a player of its own).
    names = [*started.players, *(e.name for e in events if isinstance(e, domain.PlayerQueued))]
    rotation = started.ruleset.rotation != "off"

    def ids(pair: tuple[str, str]) -> tuple[int, int]:
        return (names.index(pair[0]), names.index(pair[1])) if rotation else (0, 1)

    winner: int | None = None
    if isinstance(last, domain.MatchWon):
        seated = ids(pairs[-1] if pairs else started.players)
        winner = names.index(last.player) if last.player else seated[last.winner]
    people = [PlayerStats(name) for name in names]
    totals = [0] * len(names)
    played = [0] * len(names)
    last_pair: dict[int, tuple[int, int]] = {0: (0, 1), 1: (0, 1)}
    for game in analysis.games:
        pair = ids(pairs[game.game_index])
        for seat, person in enumerate(pair):
            summary = game.seats[seat]
            stats = people[person]
            stats.games += 1
            stats.wins += int(game.winner == seat)
            stats.points += game.score[seat]
            stats.actions += summary.actions
            stats.faults += summary.faults
            stats.right_calls += summary.right_calls
            stats.wrong_calls += summary.wrong_calls
            stats.missed_calls += summary.missed_calls
            stats.to_foundations += summary.to_foundations
            totals[person] += game.score[seat]
            played[person] += 1
            last_pair[person] = pair
    for person, stats in enumerate(people):
        at = last_pair.get(person)  # the pair of his last game (None: he never played one)
        own = at.index(person) if at is not None else None
        stats.matches = 1
        stats.matches_won = int(winner == person)
        stats.last_played_ms = started.at_ms
        stats.recent = [
            {
                "match_id": match_id,
                "seat": own,
                "opponent": names[at[1 - own]] if at is not None and own is not None else None,
                "started_at_ms": started.at_ms,
                "games": played[person],
                "totals": [totals[at[0]], totals[at[1]]] if at is not None else [0, 0],
                "finished": finished,
                "won": winner == person if finished else None,
            }
        ]
    return people


def stored_events(store: EventStore, stream: str) -> list[domain.Event]:
    return [domain.event_from_payload(r.type, r.data) for r in store.read(stream)]


def is_practice(store: EventStore, match_id: str) -> bool:
    """Whether the match is a practice game (its table opened as one): it counts for nobody."""
    try:
        opened = store.read(table_stream(match_id), 1, 1)
    except ValueError:  # a match stream whose id no table stream can have
        return False
    return bool(opened and opened[0].data.get("practice"))


class StatsIndex:
    """Every match's per-seat figures, by stream, each recomputed only when its stream grew."""

    def __init__(self) -> None:
        # stream -> (version, start, figures, (content hash, imported)): one match counts once
        self._matches: dict[str, tuple[int, int, list[PlayerStats], tuple[str, bool]]] = {}
        self._position = -1

    def players(
        self,
        store: EventStore,
        since_ms: int | None = None,
        progress: Callable[[int], None] | None = None,
        pause: Callable[[], None] | None = None,
    ) -> dict[str, PlayerStats]:
        """Every name seen in a match started at or after `since_ms`. `progress(total)` is called
        first with the number of matches, then with 1 after each; `pause()` after each match
        that had to be read (a server gives other work its turn there)."""
        self.refresh(store, progress, pause)
        merged: dict[str, PlayerStats] = {}
        counted: set[str] = set()
        # Of one match stored twice (issue 28), the one played here, else the first by id.
        for stream in sorted(self._matches, key=lambda name: (self._matches[name][3][1], name)):
            _, started, seats, (content_hash, _imported) = self._matches[stream]
            if since_ms is not None and started < since_ms or content_hash in counted:
                continue
            counted.add(content_hash)
            for stats in seats:
                total = merged.setdefault(stats.name, PlayerStats(stats.name))
                total.add(stats)
        return dict(sorted(merged.items(), key=lambda item: item[0].casefold()))

    def refresh(
        self,
        store: EventStore,
        progress: Callable[[int], None] | None = None,
        pause: Callable[[], None] | None = None,
    ) -> None:
        position = store.last_position()
        if position == self._position:
            return
        streams = store.list_streams(MATCH_PREFIX)
        if progress is not None:
            progress(len(streams))
        for stream in streams:
            version = store.stream_version(stream)
            known = self._matches.get(stream)
            if known is None or known[0] != version:
                self._matches[stream] = (version, *self._read(store, stream))
                if pause is not None:
                    pause()
            if progress is not None:
                progress(1)
        self._position = position

    @staticmethod
    def _read(store: EventStore, stream: str) -> tuple[int, list[PlayerStats], tuple[str, bool]]:
        """A match's start, figures and content hash: the same match imported twice, or played
        here and imported again under another id, has one hash and counts once."""
        match_id = stream.removeprefix(MATCH_PREFIX)
        if is_practice(store, match_id):
            return 0, [], (stream, False)
        try:
            stored = store.read(stream)
            events = [domain.event_from_payload(r.type, r.data) for r in stored]
            seats = match_stats(match_id, events)
        except domain.DomainError:  # a stream the engine cannot read: it counts for nobody
            return 0, [], (stream, False)
        started = events[0].at_ms if seats else 0
        return started, seats, dedup_key(store, match_id, [(r.type, r.data) for r in stored])
