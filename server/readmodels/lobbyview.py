"""The lobby as a projection of the store's global order: one row per table (its seats, whether
its match started, finished or expired, the score) and the position of the last event read.

The server starts from it instead of folding every match: it reads the projection saved at its
last run, catches up from the saved position (only what was written since), and then loads only
the tables still in play. Time and memory at start thus follow the live tables, not the history.
The saved file is a cache: without it (or if it is unreadable, or from another store) the
projection is rebuilt from position 1, reading each event's type and payload once, without the
domain. Each process keeps its own copy and catches up from the shared store, so tables opened
by another process appear too."""

from __future__ import annotations

import json
import logging
import os
import threading
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from eventstore import EventStore
from server.model.tables import TABLE_OPENED, RematchAnswer, Seat, Table, evolve_table
from server.runtime.pauses import HOUSEKEEPING_SLICE_S, pause_point

log = logging.getLogger(__name__)

FILE_FORMAT = "crapette-lobby/1"
_GAME_ENDS = ("GameWon", "GameStalemated", "GameResigned")
# Events read from the store at a time, the loop let go between two reads: under eventlet a
# SQLite read blocks every greenthread. Measured at human pace (100 tables, docs/benchmarks.md
# figure (b)): a second's events, read 500 at a time, stopped the loop for 2-5 ms each second;
# 100 at a time (under a millisecond each) cost more queries only when rebuilding from scratch.
READ_BATCH = 100


@dataclass
class LobbyRow:
    """What the lobby knows of one table without loading its match."""

    table: Table
    version: int = 0  # events in the match stream
    started: bool = False
    finished: bool = False
    totals: tuple[int, int] = (0, 0)
    games_played: int = 0
    last_event_ms: int = 0
    game_running: bool = False  # a game started and not over yet
    # A rotation table's session (docs/spec/rules.md §10), as `session_facts` reads it from a
    # loaded match: totals and wins by name, the queue, the last seat change, the winner.
    rotation: dict[str, Any] | None = None

    @property
    def over_game(self) -> int | None:
        """The index of the last game once it is over (None: a game runs, or none has ended):
        what the seats' "Next game" readiness is about while the match goes on."""
        if self.game_running or self.games_played == 0:
            return None
        return self.games_played - 1

    @property
    def status(self) -> str:
        """As `MatchEntry.status`: an imported match never goes on here, so it is finished."""
        if self.finished or self.table.imported:
            return "finished"
        if self.table.expired:
            return "expired"
        return "playing" if self.table.full else "open"

    @property
    def live(self) -> bool:
        """Still going on here: a match in play, or an open table waiting for its guest."""
        return not self.finished and not self.table.expired and not self.table.imported


@dataclass
class LobbyProjection:
    store: EventStore
    path: Path | None = None  # where the projection is saved between runs (None: not saved)
    rows: dict[str, LobbyRow] = field(default_factory=dict)
    position: int = 0  # the global position of the last event folded in
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _saved_position: int = 0
    # Each row's saved text and its table's, kept while the row has the same Table object and
    # version (`_row_text`): (table, version, row text, table text).
    _rows_text: dict[str, tuple[Table, int, str, str]] = field(default_factory=dict)

    # -- catching up ---------------------------------------------------------------------------

    def catch_up(self) -> int:
        """Fold every event committed after `position`; how many there were."""
        count = 0
        pause = pause_point(0.0)  # between two batches, always
        with self._lock:
            while True:
                if count:
                    pause()
                records = self.store.read_all(self.position + 1, limit=READ_BATCH)
                for record in records:
                    self._fold(record.stream, record.type, record.data)
                count += len(records)
                if records:
                    self.position = records[-1].position
                if len(records) < READ_BATCH:
                    return count

    def _fold(self, stream: str, kind: str, data: dict[str, Any]) -> None:
        prefix, _, match_id = stream.partition("-")
        if prefix == "table":
            row = self.rows.get(match_id)
            if kind == TABLE_OPENED:
                self.rows[match_id] = LobbyRow(table=evolve_table(None, kind, data))
            elif row is not None:
                row.table = evolve_table(row.table, kind, data)
            return
        if prefix != "match":
            return
        row = self.rows.get(match_id)
        if row is None:  # a match stream without its table: not a table of the lobby
            return
        row.version += 1
        row.last_event_ms = int(data["at_ms"])  # the event's own time
        if kind == "MatchStarted":
            row.started = True
            if data["ruleset"].get("rotation", "off") != "off":
                names = list(data["players"])
                row.rotation = new_session_facts(names)
        elif kind == "GameStarted":
            row.game_running = True
        elif kind == "MatchWon":
            row.finished = True
            if row.rotation is not None:
                row.rotation["winner"] = data.get("player")
        elif kind in _GAME_ENDS:
            s0, s1 = data["score"]
            row.totals = (row.totals[0] + int(s0), row.totals[1] + int(s1))
            row.games_played += 1
            row.game_running = False
            if row.rotation is not None:
                _scored(row.rotation, row.table, (int(s0), int(s1)), data.get("winner"))
        elif row.rotation is not None:
            _session_event(row, kind, data)

    def row(self, match_id: str) -> LobbyRow | None:
        with self._lock:
            return self.rows.get(match_id)

    def all_rows(self) -> list[LobbyRow]:
        with self._lock:
            return list(self.rows.values())

    # -- saved between runs --------------------------------------------------------------------

    def load(self) -> bool:
        """Read the saved projection; False (and an empty one) when there is none to trust."""
        if self.path is None or not self.path.exists():
            return False
        try:
            saved = json.loads(self.path.read_text(encoding="utf-8"))
            if saved.get("format") != FILE_FORMAT:
                raise ValueError(f"format {saved.get('format')!r}")
            position = int(saved["position"])
            if position > self.store.last_position():
                raise ValueError("saved beyond the store's last event: another store")
            rows = {r["table"]["match_id"]: _row_from_json(r) for r in saved["rows"]}
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("lobby projection %s not used (%s): rebuilt from the store", self.path, exc)
            return False
        with self._lock:
            self.rows, self.position, self._saved_position = rows, position, position
        return True

    def _row_text(self, row: LobbyRow) -> str:
        """`asdict(row)` as JSON text, made again only when the row moved. A table is replaced,
        never changed, when its stream moves, so its text is kept while the row holds the same
        Table object; every other change to a row comes with a new version (a match event,
        rotation facts included). `asdict` over some hundreds of rows stopped the loop for
        60-100 ms every save, and encoding each live row anew 4-10 ms (docs/benchmarks.md,
        figure (b)): most rows are finished tables that never change."""
        table = row.table
        known = self._rows_text.get(table.match_id)
        same_table = known is not None and known[0] is table
        if known is not None and same_table and known[1] == row.version:
            return known[2]
        table_text = known[3] if known is not None and same_table else _dumps(asdict(table))
        rest = {
            "version": row.version,
            "started": row.started,
            "finished": row.finished,
            "totals": list(row.totals),
            "games_played": row.games_played,
            "last_event_ms": row.last_event_ms,
            "game_running": row.game_running,
            "rotation": row.rotation,
        }
        text = f'{{"table":{table_text},{_dumps(rest)[1:]}'
        self._rows_text[table.match_id] = (table, row.version, text, table_text)
        return text

    def save(self) -> None:
        """Write the projection if it moved since the last save (atomically: a crash mid-write
        leaves the previous file). Encoding every row on each save stopped the loop for 4-10 ms
        every five seconds at human pace with a few hundred tables; only the rows that moved are
        encoded again."""
        if self.path is None:
            return
        pause = pause_point(HOUSEKEEPING_SLICE_S)
        with self._lock:  # catch_up waits; moves never take this lock
            if self.position == self._saved_position:
                return
            texts = []
            for row in self.rows.values():
                pause()
                texts.append(self._row_text(row))
            rows = ",".join(texts)
            position = self.position
        head = json.dumps({"format": FILE_FORMAT, "position": position}, separators=(",", ":"))
        text = f'{head[:-1]},"rows":[{rows}]}}'
        temporary = self.path.with_name(self.path.name + ".tmp")
        try:
            temporary.write_text(text, encoding="utf-8")
            os.replace(temporary, self.path)
        except OSError as exc:
            log.warning("cannot save the lobby projection to %s: %s", self.path, exc)
            return
        with self._lock:
            self._saved_position = position


def new_session_facts(names: list[str]) -> dict[str, Any]:
    return {
        "totals": {name: 0 for name in names},
        "wins": {name: 0 for name in names},
        "queue": [],
        "last_change": None,
        "winner": None,
    }


def _scored(
    facts: dict[str, Any], table: Table, score: tuple[int, int], winner: int | None
) -> None:
    for seat, person in enumerate(table.seats):
        name = person.name or ""
        facts["totals"][name] = facts["totals"].get(name, 0) + score[seat]
        if winner == seat:
            facts["wins"][name] = facts["wins"].get(name, 0) + 1


def _session_event(row: LobbyRow, kind: str, data: dict[str, Any]) -> None:
    """A rotation table's queue and seat changes (the lobby's copy of `domain.Session`)."""
    facts = row.rotation
    assert facts is not None
    if kind == "PlayerQueued":
        facts["totals"][data["name"]] = 0
        facts["wins"][data["name"]] = 0
        facts["queue"].append(data["name"])
    elif kind == "PlayerLeftQueue":
        facts["queue"] = [name for name in facts["queue"] if name != data["name"]]
    elif kind == "SeatsRotated":
        facts["queue"] = list(data["queue"])
        pair = (data["players"][0], data["players"][1])
        row.table = row.table.with_pair(pair)
        # The row's totals are the seated pair's session totals, as `MatchState.totals` are.
        row.totals = (int(facts["totals"].get(pair[0], 0)), int(facts["totals"].get(pair[1], 0)))
        facts["last_change"] = {
            "game_index": data["game_index"],
            "version": row.version,
            "left": data["left"],
            "entered": data["entered"],
            "seat": data["seat"],
        }


def _dumps(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), default=_json_default)


def _json_default(value: object) -> object:
    if isinstance(value, frozenset):  # a table's ready seats
        return sorted(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def _row_from_json(data: dict[str, Any]) -> LobbyRow:
    table = dict(data["table"])
    if "ready" in table:
        table["ready"] = frozenset(table["ready"])
    people = table.pop("people", None) or table.pop("seats")  # "seats": saved before rotation
    table["people"] = tuple(Seat(**seat) for seat in people)
    table.pop("seats", None)
    table["seated"] = tuple(table.get("seated", (0, 1)))
    for key in ("rematch_offer", "rematch_declined"):
        if table.get(key) is not None:
            table[key] = RematchAnswer(**table[key])
    return replace(
        LobbyRow(table=Table(**table)),
        version=int(data["version"]),
        started=bool(data["started"]),
        finished=bool(data["finished"]),
        totals=(int(data["totals"][0]), int(data["totals"][1])),
        games_played=int(data["games_played"]),
        last_event_ms=int(data["last_event_ms"]),
        game_running=bool(data.get("game_running", False)),
        rotation=data.get("rotation"),
    )
