"""Analyses of finished matches, asked for from the replay page: win chances and judgements of
every decision (docs/protocol.md § analysis). They are heavy (seconds of CPU), so they never run
on the event loop: each is a job for a worker process of its own pool (server/adapters/workers.py,
the analysis pool: `crapette serve --analysis-workers`), which exports the match's record, builds
the analysis (server/readmodels/analysis_build.py) and keeps it in a file named by the record's
content hash. The server keeps its jobs here, by (match, version, depth): how far each has come, and
the body once built (the newest `MAX_JOBS`), so a page asking again gets it without a worker.

A match still in play is refused at once (`MatchRunningError`), before any job starts: what a
judgement says would tell a player about cards he cannot see. The worker checks again on the
record it exports (a match the store says is over)."""

from __future__ import annotations

import functools
import importlib.util
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from records.streams import MATCH_ID_PATTERN, match_stream, table_stream
from server.adapters.matches import MatchRepository
from server.adapters.workers import ReadWorkers, requester
from server.errors import (
    AnalysisUnavailableError,
    InvalidInputError,
    MatchRunningError,
    NotAnalysedError,
    NotFoundError,
    ReadsBusyError,
    ServerError,
    quoted,
)
from server.readmodels.analysis_build import (
    DEFAULT_ANALYSER,
    DEFAULT_TRY_JUDGE,
    DEPTHS,
    build_analysis,
    build_try,
)
from server.readmodels.costs import check_analysis
from server.readmodels.judge import candidate_key

log = logging.getLogger(__name__)

# Jobs kept in memory (running or built); the oldest built ones go first. A body is a few
# hundred KB for a long match; the files in the cache directory keep every one.
MAX_JOBS = 64
# Analyses running or waiting at once; one more is `503 busy`, answered at once.
MAX_RUNNING = 8
# A try in the learning mode is as good as the best move when it keeps the seat's win chance
# within this of the best's: stricter than "good" (a drop under 0.1, docs/records.md), looser
# than the evaluator's own noise between two seeds.
AS_GOOD = 0.03

JobKey = tuple[str, int, str]  # (match id, version, depth)


@dataclass
class AnalysisJob:
    """One analysis: `state` "running", "done" or "failed"; `done` of `total` decisions judged
    so far; the body once built, or the error to give."""

    match_id: str
    version: int
    depth: str
    state: str = "running"
    done: int = 0
    total: int = 0
    body: bytes | None = None
    error: dict[str, object] | None = None
    error_status: int = 500
    finished: threading.Event = field(default_factory=threading.Event)
    _decisions: dict[int, dict[str, Any]] | None = None
    _done_json: bytes | None = None  # the status body once done (it never changes then)

    def decision_at(self, version: int) -> dict[str, Any] | None:
        """The built analysis's decision taken at the position after `version` events."""
        if self._decisions is None:
            import json

            body = json.loads(self.body or b"{}")
            self._decisions = {
                int(d["version"]): d for g in body.get("games", []) for d in g["decisions"]
            }
        return self._decisions.get(version)

    def progress(self, done: int, total: int) -> None:
        self.done, self.total = done, total

    def status_json(self) -> bytes:
        """The status body (docs/protocol.md § analysis), the analysis inlined once built."""
        import json

        head: dict[str, Any] = {
            "match_id": self.match_id,
            "version": self.version,
            "depth": self.depth,
            "status": self.state,
            "progress": {"done": self.done, "total": self.total},
        }
        if self.state == "failed":
            head["error"] = self.error
        text = json.dumps(head, separators=(",", ":"))
        if self.state == "done" and self.body is not None:
            if self._done_json is None:  # built once: a page polls, and a done body is large
                self._done_json = b"".join((text[:-1].encode(), b',"analysis":', self.body, b"}"))
            return self._done_json
        return text.encode()


class Analyses:
    """`workers`: the analysis pool (None: a store in memory, built in a thread of this
    process); `cache_dir`: where built analyses are kept by record hash (None: in memory
    only); `analyser`: `module:function` that judges a record (tests name a fixture)."""

    def __init__(
        self,
        repo: MatchRepository,
        workers: ReadWorkers | None = None,
        *,
        cache_dir: str | None = None,
        analyser: str = DEFAULT_ANALYSER,
        try_judge: str = DEFAULT_TRY_JUDGE,
        spawn: Callable[[Callable[[], None]], None] | None = None,
    ) -> None:
        self.repo = repo
        self.workers = workers
        self.cache_dir = cache_dir
        self.analyser = analyser
        self.try_judge = try_judge
        self.spawn = spawn or _thread
        self._jobs: OrderedDict[JobKey, AnalysisJob] = OrderedDict()
        self._lock = threading.Lock()
        self.started = 0  # jobs started (tests: a cached analysis starts none)

    def request(self, match_id: str, depth: str = "normal") -> AnalysisJob:
        """The analysis of the match as it is now: the job already asked for, or a new one
        started. Refused for a match still in play."""
        depth = _depth(depth)
        version = self.finished_version(match_id)
        self.check_available(self.analyser)
        key = (match_id, version, depth)
        job = self._asked(key)
        if job is not None:
            return job
        check_analysis(version)  # before any work (server/readmodels/costs.py)
        # The requester's one analysis at a time (fair shares, server/adapters/workers.py): held
        # until the job ends.
        give_back = (
            _nothing if self.workers is None else self.workers.shares.take(requester(), "analysis")
        )
        try:
            with self._lock:
                job = self._jobs.get(key)
                if job is not None and job.state != "failed":  # asked for meanwhile
                    give_back()
                    return job
                running = sum(1 for j in self._jobs.values() if j.state == "running")
                if running >= MAX_RUNNING:
                    raise ReadsBusyError(
                        f"The server is analysing {running} matches already; try again in a "
                        "moment.",
                        retry_after_s=5,
                    )
                job = self._jobs[key] = AnalysisJob(match_id, version, depth)
                self._trim()
                self.started += 1
        except BaseException:
            give_back()
            raise
        self.spawn(lambda: self._run(job, give_back))
        return job

    def _asked(self, key: JobKey) -> AnalysisJob | None:
        """The job already asked for under `key` (not a failed one): no new job for it."""
        with self._lock:
            job = self._jobs.get(key)
            if job is not None and job.state != "failed":
                self._jobs.move_to_end(key)
                return job
            return None

    def status(self, match_id: str, depth: str = "normal") -> AnalysisJob | None:
        """The job of the match's analysis at its version now (None: never asked for)."""
        depth = _depth(depth)
        version = self.finished_version(match_id)
        with self._lock:
            return self._jobs.get((match_id, version, depth))

    def built(self, match_id: str) -> AnalysisJob | None:
        """The deepest analysis of the match this server has built and holds (any version:
        the caller checks), None for none; never starts one nor loads the match."""
        with self._lock:
            done = [j for j in self._jobs.values() if j.match_id == match_id and j.state == "done"]
        return max(done, key=lambda j: (j.version, DEPTHS.index(j.depth)), default=None)

    def try_move(
        self, match_id: str, version: int, action: dict[str, Any], depth: str = "normal"
    ) -> dict[str, Any]:
        """The learning mode's question: is `action`, tried at the position after `version`
        events where the analysis judged a decision, as good as the best move found there?
        `{"verdict": "best" | "as_good" | "worse", "seat", "version", "tried", "best",
        "played", "win_chance": {"tried", "best", "played"}}`."""
        import domain

        job = self.status(match_id, depth)
        if job is None or job.state != "done":
            raise NotAnalysedError("This match has not been analysed yet: ask for it first.")
        decision = job.decision_at(version)
        if decision is None:
            message = f"No decision of this match was judged at version {version}."
            raise InvalidInputError(message, details={"version": [message]})
        seat = int(decision["seat"])
        try:
            if "do" not in action and isinstance(action.get("text"), str):  # "R0-F2", "turn"
                tried = domain.parse_action(action["text"], seat).to_json()
            else:
                tried = domain.action_from_json({**action, "seat": seat}).to_json()
        except domain.DomainError as exc:
            raise InvalidInputError(str(exc), details={"action": [str(exc)]}) from None
        best, chances = decision["best"], decision["win_chance"]
        self.check_available(self.try_judge)
        known = decision.get("candidates") or {}
        if _same(tried, best):
            chance, verdict = float(chances["best"]), "best"
        elif candidate_key(tried) in known:  # ranked by the analysis itself (issue 37)
            chance = float(known[candidate_key(tried)])
            verdict = "as_good" if chance >= float(chances["best"]) - AS_GOOD else "worse"
        else:
            request = {
                "kind": "try",
                "match_id": match_id,
                "match_version": job.version,
                "version": version,
                "action": tried,
                "depth": depth,
                "seed": 0,
                "judge": self.try_judge,
            }
            if self.workers is None:
                body = build_try(self.repo.store, request)
            else:
                body = self.workers.run(request).body
            import json

            chance = float(json.loads(body)["win_chance"])
            verdict = "as_good" if chance >= float(chances["best"]) - AS_GOOD else "worse"
        return {
            "verdict": verdict,
            "seat": seat,
            "version": version,
            "tried": tried,
            "best": best,
            "played": decision["played"],
            "win_chance": {
                "tried": chance,
                "best": chances["best"],
                "played": chances["after"],
            },
        }

    @staticmethod
    def check_available(path: str) -> None:
        """AnalysisUnavailableError unless the `module:function` named can be found (without
        importing it here: the worker imports it)."""
        if not _findable(path.partition(":")[0]):
            raise AnalysisUnavailableError(
                "This server cannot analyse matches: its evaluator is not installed.",
                analyser=path,
            )

    def finished_version(self, match_id: str) -> int:
        """The version of a finished match; NotFoundError for no such match, MatchRunningError
        for one still in play. A match this process holds answers from memory; another is
        asked of the store (its last event and its table's first: two short reads), never
        loaded here."""
        if self.repo.loaded(match_id):
            entry = self.repo.find(match_id)
            with entry.lock:
                self.repo.refresh(entry)
                version, over = entry.version, entry.status == "finished"
        else:
            version, over = self._stored(match_id)
        if not over:
            raise MatchRunningError(
                "This match is still being played: it can be analysed once it is over.",
                match_id=match_id,
            )
        return version

    def _stored(self, match_id: str) -> tuple[int, bool]:
        store = self.repo.store
        if not MATCH_ID_PATTERN.fullmatch(match_id):
            raise NotFoundError(f"There is no table {quoted(match_id)}.")
        opened = store.read(table_stream(match_id), 1, 1)
        if not opened:
            raise NotFoundError(f"There is no table {quoted(match_id)}.")
        version = store.stream_version(match_stream(match_id))
        last = store.read(match_stream(match_id), version, version) if version else []
        imported = bool(opened[0].data.get("imported", False))
        return version, imported or bool(last and last[0].type == "MatchWon")

    def _run(self, job: AnalysisJob, give_back: Callable[[], None] = lambda: None) -> None:
        request = {
            "kind": "analysis",
            "match_id": job.match_id,
            "version": job.version,
            "depth": job.depth,
            "seed": 0,
            "analyser": self.analyser,
            "cache_dir": self.cache_dir,
        }
        try:
            if self.workers is None:
                job.body = build_analysis(self.repo.store, request, job.progress)
            else:
                job.body = self.workers.run(request, job.progress, shared=False).body
            job.state = "done"
        except ServerError as exc:
            job.error, job.error_status, job.state = exc.to_json(), exc.http_status, "failed"
        except Exception:  # a bug in a build: the page says so, the server goes on
            log.exception("analysis of %s failed", job.match_id)
            job.error = {"code": "internal", "message": "The server failed to analyse this match."}
            job.state = "failed"
        finally:
            give_back()
            job.finished.set()

    def _trim(self) -> None:
        while len(self._jobs) > MAX_JOBS:
            oldest = next((k for k, j in self._jobs.items() if j.state != "running"), None)
            if oldest is None:
                return
            del self._jobs[oldest]


@functools.cache
def _findable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing, or no module name at all
        return False


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Two actions in JSON form are the same whatever extra keys (`text`, `card`) they carry."""
    keys = ("do", "seat", "from", "to", "hand")
    return all(a.get(k) == b.get(k) for k in keys)


def _depth(depth: str) -> str:
    if depth not in DEPTHS:
        message = f"depth is one of {', '.join(DEPTHS)}, not {depth!r}."
        raise InvalidInputError(message, details={"depth": [message]})
    return depth


def _nothing() -> None:
    pass


def _thread(work: Callable[[], None]) -> None:
    # Under eventlet (monkey-patched) a green thread: it waits on the worker's socket greenly.
    threading.Thread(target=work, name="analysis", daemon=True).start()
