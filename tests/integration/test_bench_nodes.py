"""`crapette bench server --nodes 2` runs end to end behind HAProxy (tiny: it checks that it works
and reports what it says, not speed)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT
from tests.integration.cluster import haproxy_binary


@pytest.mark.slow
def test_bench_nodes_compares_one_and_two_processes(postgres_url: str, redis_url: str) -> None:
    haproxy_binary()
    command = [sys.executable, "-m", "server", "bench", "server", "--nodes", "2", "--games", "2",
               "--seconds", "1", "--warmup", "0.5", "--store", postgres_url,
               "--message-queue", redis_url, "--json"]  # fmt: skip
    done = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    one, many = result["one"], result["many"]
    assert (one["processes"], many["processes"]) == (1, 2)
    assert one["moves_per_s"] > 0 and many["moves_per_s"] > 0
    assert one["refused"] == 0 and many["refused"] == 0
    assert len(one["cpu_ms_per_move_by_process"]) == 1
    assert len(many["cpu_ms_per_move_by_process"]) == 2
    assert result["gain"] == many["moves_per_s"] / one["moves_per_s"]
