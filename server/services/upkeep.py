"""Housekeeping on the server's clock, about once a second: the lobby projection catches up with
the store (and is saved every few seconds), an open table nobody joined in time expires (a
`TableExpired` fact in its table stream: out of the lobby, nothing deleted), and a match whose
seated players have all been away for a while leaves memory (read again from the store when
someone asks for it). So memory follows the tables in use, not every table ever opened."""

from __future__ import annotations

import logging
from collections.abc import Callable

from server.adapters.matches import MatchEntry, MatchRepository
from server.adapters.presence import Presence
from server.adapters.publisher import Publisher
from server.errors import TableConflictError
from server.model import tables as t
from server.readmodels.lobbyview import LobbyProjection
from server.wire.payloads import TableJson

log = logging.getLogger(__name__)

RUN_EVERY_MS = 1_000
SAVE_EVERY_MS = 5_000


class Upkeep:
    def __init__(
        self,
        repo: MatchRepository,
        presence: Presence,
        projection: LobbyProjection,
        publisher: Publisher,
        table_json: Callable[[MatchEntry], TableJson],
        *,
        clock: Callable[[], int],
        expire_open_s: float | None,
        unload_idle_s: float | None,
    ) -> None:
        self.repo = repo
        self.presence = presence
        self.projection = projection
        self.publisher = publisher
        self.table_json = table_json
        self.clock = clock
        self.expire_open_ms = None if expire_open_s is None else int(expire_open_s * 1000)
        self.unload_idle_ms = None if unload_idle_s is None else int(unload_idle_s * 1000)
        self._last_run = 0
        self._last_save = 0

    def run(self) -> None:
        """Called on every clock tick; does its work once per RUN_EVERY_MS."""
        now = self.clock()
        if now - self._last_run < RUN_EVERY_MS:
            return
        self._last_run = now
        self.projection.catch_up()
        self.expire_open_tables(now)
        self.unload_idle(now)
        if now - self._last_save >= SAVE_EVERY_MS:
            self._last_save = now
            self.projection.save()

    def expire_open_tables(self, now: int) -> list[str]:
        """Expire every open table older than `expire_open_s` whose seat nobody took."""
        if self.expire_open_ms is None:
            return []
        expired = []
        for row in self.projection.all_rows():
            table = row.table
            if row.status != "open" or now - table.created_at_ms < self.expire_open_ms:
                continue
            try:
                if self._expire(table.match_id, now):
                    expired.append(table.match_id)
            except Exception:  # one broken table must not stop the others expiring
                log.exception("cannot expire table %s", table.match_id)
        return expired

    def _expire(self, match_id: str, now: int) -> bool:
        entry = self.repo.get(match_id)
        if entry is None:
            return False
        with entry.lock:
            self.repo.refresh(entry)
            if entry.status != "open" or entry.state is not None:
                return False  # joined (here or in another process) since the projection read
            try:
                self.repo.append_table(entry, t.TABLE_EXPIRED, {"at_ms": now})
            except TableConflictError:
                return False  # another process changed it first: judged again next time
            self.publisher.table_changed(match_id, self.table_json(entry))
        self.repo.evict(match_id)
        return True

    def unload_idle(self, now: int) -> list[str]:
        """Let go of every match nobody has used for `unload_idle_s`: no client at either seat
        here, no event, no request for it."""
        if self.unload_idle_ms is None:
            return []
        unloaded = []
        for entry in self.repo.entries():
            match_id = entry.match_id
            if self.presence.anyone_seated_here(match_id):
                continue
            last = max(
                entry.touched_ms,
                entry.last_event_ms,
                entry.table.created_at_ms,
                self.presence.last_seen_ms(match_id),
            )
            if now - last >= self.unload_idle_ms:
                with entry.lock:
                    self.repo.evict(match_id)
                unloaded.append(match_id)
        return unloaded
