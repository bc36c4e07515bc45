"""A model of figure (b) of `crapette bench server`: one loop serving commands that arrive as a
Poisson stream (the clients' exponential pauses), each taking a service time drawn from an
exponential distribution of the measured mean CPU per command, plus a fixed time outside the
server (the client, the kernel, the network). Simulated, not solved: the p99 of the round trip.

It answers the question the figure leaves: how much CPU per command could the server spend at
human pace and still have its p99 within 1.5 × the echo's? The model is checked against the run
it is fed from: with the server's own CPU per command it should give about the p99 measured."""

from __future__ import annotations

import random


def p99_ms(rate_per_s: float, service_ms: float, outside_ms: float, n: int = 200_000) -> float:
    """The simulated p99 round trip, in ms, of `n` commands (the same draws for every call)."""
    draws = random.Random(14)
    mean_s = service_ms / 1000
    arrival = free_at = 0.0
    trips = []
    for _ in range(n):
        arrival += draws.expovariate(rate_per_s)
        started = max(arrival, free_at)
        free_at = started + draws.expovariate(1 / mean_s)
        trips.append(free_at - arrival)
    trips.sort()
    return trips[int(0.99 * n)] * 1000 + outside_ms


def service_for_p99(rate_per_s: float, target_ms: float, outside_ms: float) -> float | None:
    """The largest mean CPU per command (ms) whose simulated p99 is within `target_ms` (to
    5 µs); None if even a free command misses it."""
    low, high = 0.0, 1000 / rate_per_s  # the loop is saturated at the high end
    if p99_ms(rate_per_s, 0.001, outside_ms) > target_ms:
        return None
    while high - low > 0.005:
        middle = (low + high) / 2
        if p99_ms(rate_per_s, middle, outside_ms) <= target_ms:
            low = middle
        else:
            high = middle
    return low
