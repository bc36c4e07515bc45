"""`crapette bench server` runs end to end (tiny and short: it checks that it works, not speed)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT


@pytest.mark.slow
def test_bench_server_prints_one_json_object() -> None:
    command = [sys.executable, "-m", "server", "bench", "server", "--games", "2",
               "--seconds", "1", "--warmup", "0.5", "--long-events", "150",
               "--pace-think-ms", "50", "--startup-matches", "3", "--startup-events", "60",
               "--startup-rounds", "1", "--long-moves-per-s", "5", "--floor-moves", "40",
               "--stock-echo", "--json"]  # fmt: skip
    done = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["games"] == 2
    assert result["server"]["moves_per_s"] > 0 and result["echo"]["moves_per_s"] > 0
    assert result["server"]["refused"] == 0
    server, echo = result["server"], result["echo"]
    assert result["ratio_to_echo"] == server["moves_per_s"] / echo["moves_per_s"]
    # The echo on Flask-SocketIO's defaults ran in each round as well.
    stock = result["rounds"][0]["stock_echo"]
    assert stock["moves_per_s"] > 0 and stock["refused"] == 0
    assert result["rounds"][0]["cpu_per_move_over_stock_echo"] == pytest.approx(
        server["cpu_ms_per_move"] / stock["cpu_ms_per_move"]
    )
    assert result["server"]["p50_ms"] <= result["server"]["p99_ms"]
    # Issue 14's four figures, each a ratio against its baseline of the same run.
    figures = result["figures"]
    assert set(figures) == set(result["targets"])
    # (Floats; one-second phases on a busy machine may see no move at all, a NaN ratio.)
    assert all(isinstance(value, float) for value in figures.values()), figures
    stall = result["stall"]
    assert stall["reads_per_s"] > 0 and set(stall["read_statuses"]) <= {"200", "429"}
    assert stall["long_match_events_appended"] > 0 and result["read_workers"] == 1
    assert result["startup"]["matches"] == 3 and result["startup"]["events"] > 3 * 60
    assert result["pace"]["server"]["moves_per_s"] > 0
    # (c)'s floor: the same games' moves in the benchmark's process, with no transport.
    floor = result["floor"]
    assert floor["moves"] == 40 and floor["refused"] == 0 and floor["cpu_ms_per_move"] > 0
    assert floor["c_floor_ratio"] == pytest.approx(
        1 + floor["cpu_ms_per_move"] / floor["echo_cpu_ms_per_message"]
    )
    assert floor["cold_cpu_ms_per_move"] > 0
    model = floor["b_model"]
    if model is None:
        # No model without CPU figures from the pace phase: on a busy machine its short phase
        # may see no move at all (seen under a parallel load); then it must say so.
        pace = result["pace"]
        assert not (pace["server"]["cpu_ms_per_move"] and pace["echo"]["cpu_ms_per_move"])
    else:
        assert model["cpu_ms_per_command_least"] > floor["cpu_ms_per_move"]
        assert model["server_p99_ms_modelled"] > model["outside_ms"]


@pytest.mark.slow
def test_bench_server_profiles_the_server_process(tmp_path: Path) -> None:
    out = tmp_path / "stacks.txt"
    command = [sys.executable, "-m", "server", "bench", "server", "--games", "2",
               "--seconds", "2", "--warmup", "0.5", "--long-events", "0", "--pace-think-ms", "0",
               "--startup-matches", "0", "--floor-moves", "0", "--profile", str(out),
               "--json"]  # fmt: skip
    done = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1])["server"]["moves_per_s"] > 0
    stacks = out.read_text(encoding="utf-8").splitlines()
    assert stacks and all(line.rpartition(" ")[2].isdigit() for line in stacks)
    # The server's own move path is in the samples, and the summary went to stderr.
    assert any("command (server/entrypoints/sockets.py)" in line for line in stacks)
    assert "samples; inclusive:" in done.stderr
