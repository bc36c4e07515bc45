"""Which matches this process drives: their move clocks (time-outs) and their seated bots.

Alone, a process drives every match. When several share a store, exactly one drives each match
at a time, under a lease (`server.adapters.cluster.RedisLeases`); the autopilot asks `holds` before
each tick of a match, and the process's heartbeat `renew`s the leases of the live matches. A process
that stops cleanly `release`s them, so that another takes its matches at once."""

from __future__ import annotations

from collections.abc import Iterable


class Leases:
    def holds(self, match_id: str) -> bool:
        return True

    def renew(self, match_ids: Iterable[str]) -> None:
        pass

    def release(self) -> None:
        """Give up every lease for good: this process drives no match any more."""
