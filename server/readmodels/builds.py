"""What a read worker builds (server/adapters/workers.py runs the pool): a replay, a seat's
options, a record download, the shared artefacts, an analysis; and an uploaded record checked
(`verify`) or checked and stored (`import`: the worker writes it to the store itself).
`run_job` also runs in the server process when no worker runs. A worker process is
`python -m server.readmodels.builds FD`: a fresh interpreter, FD its end of the socket pair
(docs/architecture.md § Read workers)."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Callable
from typing import Any

from eventstore import EventStore
from server.adapters.workers import Answer, Job, Progress, serve_socket
from server.errors import ReadRefusedError, quoted

# -- the builds (in a worker, or in the server process when no worker runs) --------------------


def run_job(store: EventStore, job: Job, progress: Progress | None = None) -> Answer:
    """Build what `job` asks for from `store`. Raises ReadRefusedError for a refusal the client
    should see (no such match, a stream no record can describe). `progress(done, total)`: told
    how far a long build (an analysis) has come."""
    from records.errors import RecordError, error_reply
    from server.errors import ServerError

    try:
        if job["kind"] in _LONG_BUILDS:
            body, live = _LONG_BUILDS[job["kind"]](store, job, progress or _no_progress)
        else:
            body, live = _BUILDS[job["kind"]](store, job)
    except RecordError as exc:
        reply, status = error_reply(exc)
        raise ReadRefusedError(status, reply) from None
    except ServerError as exc:
        raise ReadRefusedError(exc.http_status, exc.to_json()) from None
    from server.readmodels.replays import etag_of

    return Answer(body, etag_of(body), live, os.getpid())


def _held(store: EventStore, match_id: str, version: int) -> Any:
    """The match loaded from the store as the server loads it (server.adapters.matches.MatchEntry:
    table, events, snapshots), holding at least `version` events."""
    from server.adapters.matches import MatchRepository
    from server.errors import NotFoundError

    entry = MatchRepository(store, lambda _m, _a: None).get(match_id)
    if entry is None:
        raise NotFoundError(f"There is no table {quoted(match_id)}.")
    if entry.version < version:
        raise NotFoundError(f"The match has only {entry.version} events, not {version}.")
    return entry


def _replay(store: EventStore, job: Job) -> tuple[bytes, bool]:
    from server.readmodels.replays import replay_of

    built = replay_of(_held(store, job["match_id"], job["version"]), job["version"])
    return built.body, built.live


def _options(store: EventStore, job: Job) -> tuple[bytes, bool]:
    from server.adapters.matches import MatchRepository
    from server.readmodels.knowledge import seat_options
    from server.runtime import patches

    version = job["version"]
    entry = _held(store, job["match_id"], version)
    now = MatchRepository.state_at(entry, version)
    options = seat_options(MatchRepository.states_between(entry, 0, version), now, job["seat"])
    return patches.dumps(options).encode(), now is not None and not now.finished


def _record(store: EventStore, job: Job) -> tuple[bytes, bool]:
    from records.export import export_match
    from records.text import to_text

    record = export_match(store, job["match_id"], upto=job["version"])
    if job["format"] == "json":
        body = json.dumps(record, indent=1, ensure_ascii=False) + "\n"
    else:
        body = to_text(record)
    return body.encode(), bool(record["live"])


def _shared(kind: str) -> Callable[[EventStore, Job], tuple[bytes, bool]]:
    """A build of server/readmodels/share/build.py (imported in the worker, when first asked
    for)."""

    def build(store: EventStore, job: Job) -> tuple[bytes, bool]:
        from server.readmodels.share import build as shared

        built: tuple[bytes, bool] = getattr(shared, f"build_{kind}")(store, job)
        return built

    return build


def _uploaded(job: Job) -> dict[str, Any]:
    """The record of an upload's bytes (the job's payload), within the cost caps."""
    from records.errors import RecordFormatError
    from records.importer import parse_record_file
    from server.readmodels.costs import check_record

    raw = job.get("payload", b"")
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else str(raw)
    except UnicodeDecodeError:
        raise RecordFormatError("a record is UTF-8 text") from None
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith("{"):  # JSON: counted before its form is checked (marshmallow)
        with contextlib.suppress(ValueError, RecursionError):  # not JSON: parse_record_file
            check_record(json.loads(stripped))  # says why
    record = parse_record_file(text)
    check_record(record)  # the text form, a replay file's record: once parsed
    return record


def _import(store: EventStore, job: Job, progress: Progress) -> tuple[bytes, bool]:
    from records.importer import store_record
    from server.readmodels.analysis_build import throttled

    record = _uploaded(job)
    stored = store_record(store, record, match_id=job.get("match_id"), progress=throttled(progress))
    body = {
        "match_id": stored.match_id,
        # The record's own id when it was stored under another (one of a server's own form).
        "renamed_from": stored.record_id if stored.renamed else None,
        "summary": stored.summary,
        "replay_url": f"/replay/{stored.match_id}",
    }
    return json.dumps(body).encode(), False


def _verify(store: EventStore, job: Job, progress: Progress) -> tuple[bytes, bool]:
    from records.verify import verify_record
    from server.readmodels.analysis_build import throttled

    result = verify_record(_uploaded(job), throttled(progress))
    body = {"ok": True, "summary": result.summary, "actions": result.actions}
    return json.dumps(body).encode(), False


def _analysis(store: EventStore, job: Job, progress: Progress) -> tuple[bytes, bool]:
    from server.readmodels.analysis_build import build_analysis

    return build_analysis(store, job, progress), False


def _try(store: EventStore, job: Job) -> tuple[bytes, bool]:
    from server.readmodels.analysis_build import build_try

    return build_try(store, job), False


def _no_progress(_done: int, _total: int) -> None:
    pass


_BUILDS: dict[str, Callable[[EventStore, Job], tuple[bytes, bool]]] = {
    "replay": _replay,
    "options": _options,
    "record": _record,
    # The shared artefacts (docs/protocol.md § Shared replays and pictures, docs/records.md § HTML).
    "html": _shared("html"),
    "gif": _shared("gif"),
    "png": _shared("png"),
    "try": _try,
}
# Builds that say how far they have come (docs/protocol.md § analysis, § Records: an upload's
# progress, in actions checked).
_LONG_BUILDS: dict[str, Callable[[EventStore, Job, Progress], tuple[bytes, bool]]] = {
    "analysis": _analysis,
    # Uploads (server/services/imports.py).
    "import": _import,
    "verify": _verify,
}


if __name__ == "__main__":
    serve_socket(int(sys.argv[1]), run_job)
