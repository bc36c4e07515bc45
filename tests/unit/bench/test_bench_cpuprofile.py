"""bench/cpuprofile.py: the CPU-time sampler behind `crapette bench server --profile`
counts the stacks it interrupts, and the summary reads the collapsed stacks it writes."""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path

import pytest

from bench.cpuprofile import Sampler, summary


def _spin(seconds: float) -> int:
    """Burn CPU (not sleep: ITIMER_PROF counts only CPU time)."""
    end, n = time.process_time() + seconds, 0
    while time.process_time() < end:
        n += 1
    return n


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ITIMER_PROF")
def test_the_sampler_counts_the_stacks_that_use_the_cpu(tmp_path: Path) -> None:
    sampler = Sampler(tmp_path / "stacks.txt")
    before = signal.getsignal(signal.SIGPROF)
    signal.signal(signal.SIGPROF, sampler.sample)
    signal.setitimer(signal.ITIMER_PROF, 0.001, 0.001)
    try:
        _spin(0.3)
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, before)
    assert sum(sampler.stacks.values()) >= 10
    spinning = sum(n for stack, n in sampler.stacks.items() if "_spin (" in stack)
    assert spinning >= 0.8 * sum(sampler.stacks.values())


def test_the_summary_gives_inclusive_and_self_shares() -> None:
    collapsed = (
        "main (a.py);work (b.py);encode (c.py) 3\nmain (a.py);work (b.py) 1\nmain (a.py) 4\n"
    )
    lines = summary(collapsed, top=3)
    assert lines[0] == "8 samples; inclusive:"
    assert lines[1:4] == ["100.0% main (a.py)", " 50.0% work (b.py)", " 37.5% encode (c.py)"]
    assert lines[4] == "self:"
    assert lines[5:8] == [" 50.0% main (a.py)", " 37.5% encode (c.py)", " 12.5% work (b.py)"]
    assert summary("") == ["no samples"]
