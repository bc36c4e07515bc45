"""A stand-in for `domain.evaluator` in the judge's tests (records/judge.py): a tiny,
deterministic heuristic with the evaluator's API, so that the judge's figures, thresholds and
shapes can be checked without the real evaluator's seconds. A seat's chance is a logistic of the
cards each seat still has to get rid of (a won game 1.0, a lost one 0.0), shifted by a small
seeded wobble so that two seeds differ a little; `rank_actions` plays each legal action through
the engine and ranks the chance after it."""

from __future__ import annotations

import hashlib
import math
from typing import Any

import domain

PLAY = (domain.Move, domain.Turn, domain.Discard, domain.Pass)


class CardCount:
    def __init__(self) -> None:
        self.calls: list[tuple[str, int, str, int]] = []  # (function, version, depth, seed)

    def win_chance(
        self,
        match: domain.MatchState,
        seat: int,
        *,
        depth: str = "normal",
        seed: int = 0,
        omniscient: bool = False,
    ) -> float:
        self.calls.append(("win_chance", match.version, depth, seed))
        return _chance(match, seat, seed)

    def rank_actions(
        self,
        match: domain.MatchState,
        seat: int,
        *,
        depth: str = "normal",
        seed: int = 0,
        omniscient: bool = False,
    ) -> list[tuple[domain.Action, float]]:
        self.calls.append(("rank_actions", match.version, depth, seed))
        legal = [a for a in domain.legal_actions(match, seat) if isinstance(a, PLAY)]
        ranked = [(a, _chance(_after(match, a), seat, seed)) for a in legal]
        return sorted(ranked, key=lambda pair: -pair[1])

    def chance_after(
        self,
        match: domain.MatchState,
        action: domain.Action,
        *,
        depth: str = "normal",
        seed: int = 0,
    ) -> float:
        self.calls.append(("chance_after", match.version, depth, seed))
        return _chance(_after(match, action), action.seat, seed)


def _after(match: domain.MatchState, action: domain.Action) -> domain.MatchState:
    game = match.game
    assert game is not None
    return domain.play(match, domain.Act(action, game.move_started_at_ms))[1]


def _chance(match: domain.MatchState, seat: int, seed: int) -> float:
    game = match.game
    assert game is not None
    if game.result is not None:
        return 1.0 if game.result.winner == seat else 0.0
    mine = game.reserve_cards(seat) * 2 + game.loose_cards(seat)
    theirs = game.reserve_cards(1 - seat) * 2 + game.loose_cards(1 - seat)
    wobble = _unit(seed, match.version, seat) * 0.004
    return 1 / (1 + math.exp(0.08 * (mine - theirs))) * 0.99 + wobble


def _unit(*parts: Any) -> float:
    digest = hashlib.sha256(repr(parts).encode()).digest()
    return int.from_bytes(digest[:4], "big") / 2**32
