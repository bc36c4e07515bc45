"""`crapette bench abuse` runs end to end (one cheap kind, tiny and short: it checks that it
works and prints every figure, not speed)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT


@pytest.mark.slow
def test_bench_abuse_prints_one_json_object() -> None:
    command = [sys.executable, "-m", "server", "bench", "abuse", "--kinds", "claims",
               "--seconds", "1", "--warmup", "0.5", "--rounds", "1", "--json"]  # fmt: skip
    done = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["server_alive"] is True and result["rounds"] == 1
    claims = result["figures"]["claims"]
    assert claims["move_p99_ms_alone"] > 0 and claims["move_p99_ms_abused"] > 0
    assert claims["move_p99_ratio"] == claims["move_p99_ms_abused"] / claims["move_p99_ms_alone"]
    assert claims["round_ratios"] == [claims["move_p99_ratio"]]  # one round: its own ratio
    assert claims["small_replay_max_s"] > 0
    # Claims were sent (one after the other: over the join budget each 429 waits a second),
    # from an address of their own, and answered.
    statuses = claims["abuse_statuses"]
    assert statuses["sent"] >= 1 and set(statuses) <= {"sent", "200", "429"}
    assert statuses.get("200", 0) >= 1
    (pair,) = claims["rounds"]
    for phase in pair:  # the victim's small replays, answered or still waiting at the end
        assert phase["small_replays"] + len(phase["small_replay_unanswered_s"]) >= 1
