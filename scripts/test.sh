#!/usr/bin/env bash
# Install everything the tests need and run the quality gates and the whole test suite.
#   bash scripts/test.sh              everything (this is what .ci/run runs)
#   bash scripts/test.sh -k deal -x   extra arguments go to pytest
#   bash scripts/test.sh -m "not slow and not browser"   the quick loop (README § Tests)
# pytest runs on several workers (pytest-xdist; CRAPETTE_TEST_WORKERS, default one per CPU and
# one more, for the worker that sits out the soak's idle minutes; 0 runs in this one process) and
# prints the 25 slowest tests at the end.
# Exits non-zero when any gate or test fails. Under CI=true, tests that need PostgreSQL or Redis
# fail instead of skipping when those services are missing (CRAPETTE_REQUIRE_SERVICES=1).

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

ensure_venv
install_project "[test]"

# Browser tests drive Debian's chromium (not Playwright's download: it needs no internet access).
if ! command -v chromium >/dev/null 2>&1 && [ ! -x /usr/bin/chromium ]; then
    # A font too: with --no-install-recommends a bare machine would have none to draw text with.
    apt_install chromium fonts-dejavu-core
fi
# The multi-process tests put HAProxy in front of several servers, as deploy/haproxy.cfg does.
if ! command -v haproxy >/dev/null 2>&1 && [ ! -x /usr/sbin/haproxy ]; then
    apt_install haproxy
fi

export PATH="$VENV/bin:$PATH"
if [ "${CI:-}" = "true" ]; then
    export CRAPETTE_REQUIRE_SERVICES=1
fi

FAILED=()
run_gate() {
    local name="$1"
    shift
    say "$name: $*"
    local start=$SECONDS
    if "$@"; then
        say "$name passed ($((SECONDS - start)) s)"
    else
        say "$name FAILED ($((SECONDS - start)) s)"
        FAILED+=("$name")
    fi
}

# Each test file is one worker's unit, and the files that use Redis one unit together
# (tests/conftest.py, `pytest_xdist_make_scheduler`).
PYTEST_WORKERS=(-n "${CRAPETTE_TEST_WORKERS:-$(($(nproc) + 1))}" --dist loadfile --durations=25)

run_pytest() {
    local code=0
    python -m pytest "${PYTEST_WORKERS[@]}" "$@" || code=$?
    if [ "$code" -eq 5 ]; then
        # Nothing collected: fine for a narrowed run (`-k nothing-matches`), not for the full one.
        if [ "$#" -gt 0 ]; then
            echo "pytest collected no tests for: $*" >&2
            return 0
        fi
        echo "pytest collected no tests at all" >&2
    fi
    return "$code"
}

run_gate "ruff check" ruff check .
run_gate "ruff format" ruff format --check .
run_gate "mypy strict (domain, eventstore)" mypy --strict domain eventstore
run_gate "mypy (server, records, bench)" mypy server records bench
run_gate "mypy strict (tests)" mypy --strict tests
run_gate "import rules" lint-imports
run_gate "pytest" run_pytest "$@"

if [ "${#FAILED[@]}" -gt 0 ]; then
    say "FAILED: ${FAILED[*]}"
    exit 1
fi
say "all gates and tests passed"
