"""`crapette bench analysis` runs end to end (tiny and short: it checks that it works, not its
figures), with the fixture analyser made to take a while per decision in the worker."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT


@pytest.mark.slow
def test_bench_analysis_prints_one_json_object() -> None:
    command = [sys.executable, "-m", "server", "bench", "analysis", "--matches", "2",
               "--events", "120", "--seconds", "2", "--warmup", "0.5",
               "--analyser", "tests.analysis_fixture:analyse_record", "--json"]  # fmt: skip
    env = {**os.environ, "CRAPETTE_FIXTURE_DELAY_S": "0.01"}
    done = subprocess.run(
        command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=240, env=env
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    assert result["errors"] == []
    assert result["moves_alone"] > 0 and result["moves_analysing"] > 0
    assert result["analyses"] and all(a["decisions"] > 50 for a in result["analyses"])
    assert result["ratio"] == pytest.approx(
        result["p99_ms_analysing"] / result["p99_ms_alone"], rel=0.01
    )
