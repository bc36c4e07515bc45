"""An analysis of a finished match, as a worker process builds it (server/adapters/workers.py): the
match's record exported from the store, its content hash, and the judgements of every decision
(`server.readmodels.judge.analyse_record`, docs/records.md), kept in files named by that hash.

The events stay the only truth: an analysis is derived from the record, never written to any
stream, and can be thrown away and built again at any time. The key is the record's content
(`record_hash`, the hash of the record's JSON; not the `content_hash` of the stored events that
records.identity keeps for imports): the same match's record on another server, imported here
under another id, or exported by another process of a cluster, finds the same analysis.

A match still in play is refused before anything is computed (`MatchRunningError`): its record
would hold public information only, and even that must not be judged while the game can still
be changed by what the judgements say."""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from eventstore import EventStore
from server.errors import MatchRunningError

# 2: the judge of issue 37 (the expert's search, labels checked by playouts); 3: its accuracy
# the share of each decision's stake kept; 4: a chance above 80 % counted as 80 % in a cost
# (`server.readmodels.judge.FORMAT_VERSION`, `WON_FROM`). An analysis of
# another format is never read: the cache's file names carry the format, so an old one is
# built again, not shown.
FORMAT = "crapette-analysis/4"
DEPTHS = ("quick", "normal", "deep")
DEFAULT_ANALYSER = "server.readmodels.judge:analyse_record"
DEFAULT_TRY_JUDGE = "server.services.try_judge:judge_try"
# A progress frame at most this often: 400 decisions need not be 400 frames.
PROGRESS_EVERY_S = 0.1

Progress = Callable[[int, int], None]
Analyser = Callable[..., Any]


def record_hash(record: dict[str, Any]) -> str:
    """The content hash of a record: SHA-256 of its canonical JSON (sorted keys, no spaces)
    without its `match_id`, which names where it is kept, not what was played."""
    content = {key: value for key, value in record.items() if key != "match_id"}
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def load_analyser(path: str) -> Analyser:
    """`module:function`, as the server's configuration names it (never a client)."""
    module, _, name = path.partition(":")
    function: Analyser = getattr(importlib.import_module(module), name)
    return function


def cache_file(cache_dir: str, digest: str, depth: str, seed: int) -> Path:
    version = FORMAT.rpartition("/")[2]
    return Path(cache_dir) / f"{digest}-{depth}-{seed}-v{version}.json"


def read_cached(cache_dir: str | None, digest: str, depth: str, seed: int) -> bytes | None:
    if cache_dir is None:
        return None
    try:
        return cache_file(cache_dir, digest, depth, seed).read_bytes()
    except OSError:
        return None


def write_cached(cache_dir: str | None, digest: str, depth: str, seed: int, body: bytes) -> None:
    """Written to a temporary file and renamed: a reader never sees half an analysis, and two
    processes writing the same one leave one whole file."""
    if cache_dir is None:
        return
    Path(cache_dir).mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=cache_dir, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(body)
        os.replace(tmp, cache_file(cache_dir, digest, depth, seed))
    except OSError:
        os.unlink(tmp)
        raise


def throttled(progress: Progress, every_s: float = PROGRESS_EVERY_S) -> Progress:
    """`progress`, called at most every `every_s` seconds, and always for the last step."""
    last = [0.0]

    def tell(done: int, total: int) -> None:
        now = time.monotonic()
        if done >= total or now - last[0] >= every_s:
            last[0] = now
            progress(done, total)

    return tell


def build_analysis(store: EventStore, job: dict[str, Any], progress: Progress) -> bytes:
    """The analysis body of the match `job["match_id"]` at `job["version"]` (JSON bytes):
    `{"format", "match_id", "version", "record_hash", "depth", "seed", "games": [...]}`."""
    from records.export import export_match

    match_id, version = job["match_id"], int(job["version"])
    depth, seed = str(job.get("depth", "normal")), int(job.get("seed", 0))
    record = export_match(store, match_id, upto=version)
    if record["live"]:
        raise MatchRunningError(
            "This match is still being played: it can be analysed once it is over.",
            match_id=match_id,
        )
    digest = record_hash(record)
    cache_dir = job.get("cache_dir")
    cached = read_cached(cache_dir, digest, depth, seed)
    if cached is not None:
        return for_match(cached, match_id, version)
    analyser = load_analyser(str(job.get("analyser") or DEFAULT_ANALYSER))
    result = analyser(record, depth=depth, seed=seed, progress=throttled(progress))
    judged = {key: value for key, value in result.items() if key not in ("match_id", "version")}
    document = {"format": FORMAT, "record_hash": digest, "depth": depth, "seed": seed, **judged}
    body = json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode()
    write_cached(cache_dir, digest, depth, seed, body)
    return for_match(body, match_id, version)


def for_match(body: bytes, match_id: str, version: int) -> bytes:
    """The cached analysis (of the record's content) said of this match: its id and version
    first (a record imported twice shares one analysis)."""
    head = json.dumps({"match_id": match_id, "version": version}, separators=(",", ":"))
    return f"{head[:-1]},{body.decode()[1:]}".encode()


def position_at(record: dict[str, Any], version: int) -> Any:
    """The match state after the first `version` events of a verified record's match (the
    engine's events, as the server stored them)."""
    import domain
    from records.verify import verify_record

    state = None
    done = 0
    for batch in verify_record(record).batches:
        for event in batch:
            if done == version:
                return state
            state = domain.evolve(state, event)
            done += 1
    return state


def build_try(store: EventStore, job: dict[str, Any]) -> bytes:
    """A try's win chance (learning mode, server/services/analyses.py): `{"win_chance": p}` for the
    seat that decided at `job["version"]`, after `job["action"]` there; a refusal for a match in
    play, or for an action the rules do not allow there (`not_legal`)."""
    from records.export import export_match

    match_id = job["match_id"]
    record = export_match(store, match_id, upto=int(job["match_version"]))
    if record["live"]:
        raise MatchRunningError(
            "This match is still being played: it can be analysed once it is over.",
            match_id=match_id,
        )
    import domain
    from server.errors import CommandRefusedError

    state = position_at(record, int(job["version"]))
    action = domain.action_from_json(job["action"])
    if state is None or action not in domain.legal_actions(state, action.seat):
        raise CommandRefusedError(
            f"{action.notation()} is not a legal action at that position.", reason="not_legal"
        )
    judge = load_analyser(str(job.get("judge") or DEFAULT_TRY_JUDGE))
    depth, seed = str(job.get("depth", "normal")), int(job.get("seed", 0))
    chance = float(judge(state, action, depth=depth, seed=seed))
    return json.dumps({"win_chance": chance}).encode()
