"""A table's result read off its match: what the server reports when a tournament match ends
(no score is typed by hand)."""

from __future__ import annotations

from domain.state import MatchState
from domain.tournament.commands import ReportMatch


def result_of_match(match: MatchState, at_ms: int) -> ReportMatch | None:
    """The `ReportMatch` for a finished match (its `MatchWon`: winner seat and card-point
    totals), None while it runs."""
    if not match.finished:
        return None
    return ReportMatch(match.match_id, match.winner, (match.totals[0], match.totals[1]), at_ms)
