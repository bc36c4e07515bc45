"""Uploaded records (docs/protocol.md § Records): checked (`verify`) or checked and stored
(`upload`), never on the event loop. The bytes go to a worker of the heavy pool
(server/adapters/workers.py) with a short request; the worker parses the record, refuses one over
the cost caps (server/readmodels/costs.py) before verifying it, verifies every action, and for an
import writes it to the store with its own connection (records/importer.py `store_record`: the
same code as `crapette import`). The server's greenthread waits on the worker's socket meanwhile,
so every table plays on; the lobby learns of the new match from the store like of any other
writer's. An address has one upload at a time (fair shares: a second is a 429).

Without workers (a store in memory, or one handed to the app) the same job runs in the server
process."""

from __future__ import annotations

import json
from typing import Any

from eventstore import EventStore
from server.adapters.workers import Job, ReadWorkers
from server.readmodels.builds import run_job


class Imports:
    def __init__(self, store: EventStore, workers: ReadWorkers | None = None) -> None:
        self.store = store
        self.workers = workers

    def upload(self, raw: bytes, match_id: str | None = None) -> dict[str, Any]:
        """Store the record in `raw` (JSON, text form or a replay file) as a match: its id,
        the id it was renamed from, a summary and the replay's URL. ReadRefusedError with the
        record error's status and body when it is refused."""
        return self._run({"kind": "import", "match_id": match_id}, raw)

    def verify(self, raw: bytes) -> dict[str, Any]:
        """Check the record in `raw` against the rules without storing it."""
        return self._run({"kind": "verify"}, raw)

    def _run(self, job: Job, raw: bytes) -> dict[str, Any]:
        if self.workers is None:
            body = run_job(self.store, {**job, "payload": raw}).body
        else:
            body = self.workers.run(job, payload=raw).body
        answer: dict[str, Any] = json.loads(body)
        return answer
