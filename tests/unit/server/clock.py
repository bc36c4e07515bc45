"""A clock the test moves by hand, for `GameService(clock=...)`."""

from __future__ import annotations


class Clock:
    """Milliseconds since the epoch, fixed until a test changes `ms`."""

    def __init__(self, ms: int = 1_764_435_721_000) -> None:
        self.ms = ms

    def __call__(self) -> int:
        return self.ms
