"""(b)'s queueing model (bench/queueing.py) against what queueing theory says."""

from __future__ import annotations

import math

import pytest

from bench.queueing import p99_ms, service_for_p99


def test_the_model_matches_an_m_m_1_queue() -> None:
    # M/M/1: the time in the system is exponential with rate mu - lambda, so its p99 is
    # ln(100) / (mu - lambda). At 250 commands/s and 2 ms each (utilisation 0.5): 36.8 ms.
    expected = math.log(100) / (500 - 250) * 1000
    assert p99_ms(250, 2.0, 0.0) == pytest.approx(expected, rel=0.05)
    # The time outside the server is added as it is.
    assert p99_ms(250, 2.0, 1.5) == pytest.approx(p99_ms(250, 2.0, 0.0) + 1.5)


def test_more_cpu_per_command_never_shortens_the_p99() -> None:
    trips = [p99_ms(250, service, 0.3) for service in (0.1, 0.4, 0.8, 1.6, 3.2)]
    assert trips == sorted(trips)


def test_the_allowed_cpu_per_command_is_the_one_meeting_the_target() -> None:
    allowed = service_for_p99(250, 2.5, 0.3)
    assert allowed is not None
    assert p99_ms(250, allowed, 0.3) <= 2.5 < p99_ms(250, allowed + 0.02, 0.3)
    # M/M/1 solved for the service: ln(100) / (1/s - 250) = 2.2 ms gives s = 0.391 ms.
    assert allowed == pytest.approx(1000 / (250 + math.log(100) / 0.0022), rel=0.05)
    # A target below the time outside the server allows nothing.
    assert service_for_p99(250, 0.2, 0.3) is None
