"""Uploaded records (docs/protocol.md § Records): checked (`verify`) or checked and stored
(`upload`), never on the event loop. The bytes go to a worker of the heavy pool
(server/adapters/workers.py) with a short request; the worker parses the record, refuses one over
the cost caps (server/readmodels/costs.py) before verifying it, verifies every action, and for an
import writes it to the store with its own connection (records/importer.py `store_record`: the
same code as `crapette import`). The server's greenthread waits on the worker's socket meanwhile,
so every table plays on; the lobby learns of the new match from the store like of any other
writer's. An address has one upload at a time (fair shares: a second is a 429).

Progress: an upload may name itself with a token of the client's choosing (`?progress=TOKEN`);
while it runs, `progress(TOKEN)` says how far it has come: `queued` (waiting for a worker),
`checking` (so many of the record's actions verified, from the worker's progress frames, as an
analysis tells its own), `storing` (an import's check is over: its events are being written),
then `done` or `failed`. The newest MAX_PROGRESS are kept, each KEEP_S after its end.

Without workers (a store in memory, or one handed to the app) the same job runs in the server
process."""

from __future__ import annotations

import json
import re
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from eventstore import EventStore
from server.adapters.workers import Job, ReadWorkers
from server.readmodels.builds import run_job

# A client's name for its upload: long and random enough that nobody else guesses it.
TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")
MAX_PROGRESS = 256
KEEP_S = 60.0


@dataclass
class UploadProgress:
    """How far one upload has come (docs/protocol.md § Records, `GET /api/records/progress`)."""

    kind: str  # "import" or "verify"
    stage: str = "queued"
    done: int = 0
    total: int = 0
    ended_at: float | None = None

    def told(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        # An import's check is over: what is left is writing its events.
        self.stage = "storing" if self.kind == "import" and done >= total else "checking"

    def to_json(self) -> dict[str, Any]:
        return {"stage": self.stage, "actions": {"done": self.done, "total": self.total}}


class Imports:
    def __init__(self, store: EventStore, workers: ReadWorkers | None = None) -> None:
        self.store = store
        self.workers = workers
        self._progress: OrderedDict[str, UploadProgress] = OrderedDict()
        self._lock = threading.Lock()

    def upload(
        self, raw: bytes, match_id: str | None = None, token: str | None = None
    ) -> dict[str, Any]:
        """Store the record in `raw` (JSON, text form or a replay file) as a match: its id,
        the id it was renamed from, a summary and the replay's URL. ReadRefusedError with the
        record error's status and body when it is refused. `token`: what `progress` knows it
        by."""
        return self._run({"kind": "import", "match_id": match_id}, raw, token)

    def verify(self, raw: bytes, token: str | None = None) -> dict[str, Any]:
        """Check the record in `raw` against the rules without storing it."""
        return self._run({"kind": "verify"}, raw, token)

    def progress(self, token: str) -> dict[str, Any] | None:
        """How far the upload named `token` has come; None if none such (or long over)."""
        with self._lock:
            self._forget_old()
            known = self._progress.get(token)
            return None if known is None else known.to_json()

    def _run(self, job: Job, raw: bytes, token: str | None) -> dict[str, Any]:
        told = self._start(token, job["kind"])
        try:
            if self.workers is None:
                answer = run_job(self.store, {**job, "payload": raw}, told.told)
            else:
                answer = self.workers.run(job, told.told, payload=raw)
        except BaseException:
            told.stage = "failed"
            raise
        finally:
            told.ended_at = time.monotonic()
        told.stage = "done"
        body: dict[str, Any] = json.loads(answer.body)
        return body

    def _start(self, token: str | None, kind: str) -> UploadProgress:
        told = UploadProgress(kind)
        if token is None:
            return told
        with self._lock:
            self._forget_old()
            self._progress[token] = told
            self._progress.move_to_end(token)
            while len(self._progress) > MAX_PROGRESS:
                self._progress.popitem(last=False)
        return told

    def _forget_old(self) -> None:
        now = time.monotonic()
        over = [
            token
            for token, told in self._progress.items()
            if told.ended_at is not None and now - told.ended_at > KEEP_S
        ]
        for token in over:
            del self._progress[token]
