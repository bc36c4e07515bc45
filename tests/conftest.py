"""Shared test fixtures: external services, free ports, artifact folders, hypothesis profiles.

Tests that need PostgreSQL or Redis ask for the `postgres_url` / `redis_url` fixture. Where the
service is absent such a test is skipped with a visible reason (pytest runs with `-ra`), except
when CRAPETTE_REQUIRE_SERVICES=1 (set by scripts/test.sh under CI=true): then it fails, so that a
CI machine without the services can never turn green by skipping.
"""

from __future__ import annotations

import functools
import os
import re
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REPO_ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS_ROOT = REPO_ROOT / "test-artifacts"

DEFAULT_POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"

# Hypothesis' per-example deadline is a timed assertion in disguise: a busy CI machine would fail
# tests that are correct. Under CI the examples are also derandomized so a failure reproduces.
settings.register_profile("dev", deadline=None)
settings.register_profile(
    "ci",
    deadline=None,
    derandomize=True,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("ci" if os.environ.get("CI", "").lower() == "true" else "dev")


def services_required() -> bool:
    """True when missing services must fail tests instead of skipping them (CI)."""
    return os.environ.get("CRAPETTE_REQUIRE_SERVICES", "") not in ("", "0", "false")


def service_unavailable(name: str, problem: str) -> None:
    """Skip the current test (or fail it under CI) because service `name` cannot be used."""
    reason = f"{name} unavailable: {problem}"
    if services_required():
        pytest.fail(f"{reason} (CRAPETTE_REQUIRE_SERVICES=1: required here, not skipped)")
    pytest.skip(reason)


def _postgres_problem(url: str) -> str | None:
    """None when `url` accepts a connection and a query, else what went wrong."""
    try:
        import psycopg
    except ImportError as exc:  # pragma: no cover - psycopg is a runtime dependency
        return f"psycopg not installed ({exc})"
    try:
        with psycopg.connect(url, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as exc:
        return f"cannot connect to {url}: {str(exc).strip().splitlines()[0]}"
    return None


def _redis_problem(url: str) -> str | None:
    """None when a Redis server at `url` answers PING (checked with a bare socket: no client
    library is needed for the check itself)."""
    match = re.match(r"redis://(?:[^@/]*@)?([^:/]+)(?::(\d+))?", url)
    if match is None:
        return f"not a redis:// URL: {url}"
    host, port = match.group(1), int(match.group(2) or 6379)
    try:
        with socket.create_connection((host, port), timeout=3) as sock:
            sock.sendall(b"PING\r\n")
            reply = sock.recv(64)
    except OSError as exc:
        return f"cannot connect to {host}:{port}: {exc}"
    if not reply.startswith((b"+PONG", b"-NOAUTH")):
        return f"unexpected reply from {host}:{port}: {reply!r}"
    return None


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """URL of a reachable PostgreSQL database (CRAPETTE_TEST_POSTGRES_URL, default the local `test`
    database). Tests sharing it must clean up after themselves (e.g. use unique stream names or
    their own schema)."""
    url = os.environ.get("CRAPETTE_TEST_POSTGRES_URL", DEFAULT_POSTGRES_URL)
    problem = _postgres_problem(url)
    if problem is not None:
        service_unavailable("PostgreSQL", problem)
    return url


@pytest.fixture(scope="session")
def redis_url() -> str:
    """URL of a reachable Redis server (CRAPETTE_TEST_REDIS_URL, default local database 0)."""
    url = os.environ.get("CRAPETTE_TEST_REDIS_URL", DEFAULT_REDIS_URL)
    problem = _redis_problem(url)
    if problem is not None:
        service_unavailable("Redis", problem)
    return url


def find_free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that was free a moment ago on `host` (servers under test bind 127.0.0.1)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
def free_port() -> int:
    return find_free_port()


@pytest.fixture
def artifact_dir(request: pytest.FixtureRequest) -> Iterator[Path]:
    """A folder under test-artifacts/ for this test's screenshots and logs, kept after the run."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.nodeid).strip("_")
    path = ARTIFACTS_ROOT / name
    path.mkdir(parents=True, exist_ok=True)
    yield path


def pytest_configure(config: pytest.Config) -> None:
    """Refuse to run when `tests` is not this folder. The `glicko2` wheel installs a top-level
    `tests` package into site-packages; pyproject.toml's `pythonpath = ["."]` puts the checkout
    first whatever the import mode or the working folder, and this says so plainly if anything
    ever changes that (rather than an ImportError deep in a test module)."""
    import tests

    found = Path(tests.__file__ or "").resolve().parent
    if found != Path(__file__).resolve().parent:
        raise pytest.UsageError(
            f"`import tests` finds {found}, not this checkout's tests/ (another package named "
            "`tests`, e.g. glicko2's in site-packages, comes first on sys.path)"
        )


# Each test folder implies a marker, so `-m "not browser"` or `-m integration` select by kind
# without every test having to say it; a test that uses PostgreSQL is marked `postgres`, and one
# that drives Chromium `slow`.
_FOLDER_MARKERS = {"browser": "browser", "integration": "integration"}


# First: the markers must be on before `-m` selects by them and before xdist reads the groups.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    tests_root = Path(__file__).resolve().parent
    for item in items:
        try:
            relative = Path(str(item.path)).resolve().relative_to(tests_root)
        except ValueError:
            continue
        marker = _FOLDER_MARKERS.get(relative.parts[0]) if relative.parts else None
        if marker is not None:
            item.add_marker(marker)
        fixtures = getattr(item, "fixturenames", ())
        if "postgres_url" in fixtures:
            item.add_marker("postgres")
        # A test that drives Chromium takes many seconds: out of the quick `-m "not slow"` run.
        if "browser" in fixtures:
            item.add_marker("slow")
        # A whole benchmark run, `crapette bench …` end to end (tests/*/test_bench_*.py,
        # test_store_bench.py; the unit tests of bench/ are not): slow too, and `bench`.
        if relative.parts[0] != "unit" and "bench" in relative.stem.split("_"):
            item.add_marker("bench")
            item.add_marker("slow")
    if os.environ.get("PYTEST_XDIST_WORKER"):
        _spread_over_workers(items)


# -- running in parallel (pytest-xdist, scripts/test.sh: `-n auto --dist loadfile`) -----------
#
# What must not be split or run side by side is a group, which one worker runs in order:
# - a test file: its module-scoped server, browser pages or schema serve its tests in turn, and
#   its tests may build on each other's tables;
# - every test file that uses Redis (the `redis_url` fixture): the server processes of a cluster
#   share one Socket.IO channel (`crapette-socketio`), the rate limits' counters and one key
#   space, so two clusters at once would hear each other.
# Everything else is per test and per worker already: free ports, tmp_path, PostgreSQL schemas
# named by uuid, test-artifacts/<test id>/, one Chromium per worker.
# (xdist's own `xdist_group` mark does nothing under pytest 9.2, which no longer lets a plugin
# rename a test; hence the scheduler below, which groups by these rules instead.)

TESTS_ROOT = Path(__file__).resolve().parent
SHARED_SERVICE_FIXTURES = ("redis_url",)


@functools.cache
def _files_sharing_redis() -> frozenset[str]:
    """The test files (as in a test id: `tests/…`) that ask for a shared-service fixture."""
    return frozenset(
        path.relative_to(REPO_ROOT).as_posix()
        for path in TESTS_ROOT.rglob("test_*.py")
        if any(name in path.read_text(encoding="utf-8") for name in SHARED_SERVICE_FIXTURES)
    )


def group_of(nodeid: str) -> str:
    """The group a test runs in: its file, or `redis` for every file that uses Redis."""
    path = nodeid.split("::", 1)[0]
    return "redis" if path in _files_sharing_redis() else path


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """Under `--dist loadfile`: xdist's own scheduling by scope, each scope a group above, sent
    in the order the workers collected them (longest kinds first: `_spread_over_workers`)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class Groups(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            return group_of(nodeid)

    config.option.loadscopereorder = False  # keep the order below, not "most tests first"
    return Groups(config, log)


def _rank(item: pytest.Item) -> int:
    """Longest kinds first, so that no worker starts a three-minute group when the others are
    done: soaks, then Chromium, then real servers, then the slow rest, then the quick."""
    for rank, marker in enumerate(("soak", "browser", "integration", "slow", "postgres")):
        if item.get_closest_marker(marker) is not None:
            return rank
    return 5


def _spread_over_workers(items: list[pytest.Item]) -> None:
    """Put the groups longest kind first, each group's tests in their order. Every worker
    collects the same, so every worker sorts the same."""
    groups: dict[str, list[pytest.Item]] = {}
    for item in items:
        groups.setdefault(group_of(item.nodeid), []).append(item)
    ordered = sorted(groups.values(), key=lambda group: min(_rank(item) for item in group))
    items[:] = [item for group in ordered for item in group]
