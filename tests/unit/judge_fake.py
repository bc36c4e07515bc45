"""A stand-in for the judge's watch (`domain.evaluator.judging.Watch`) in the judge's tests
(server/readmodels/judge.py): a tiny, deterministic heuristic with the watch's API, so that the
judge's figures, thresholds and shapes can be checked without the real engine's seconds. A seat's
chance is a logistic of the cards each seat still has to get rid of (a won game 1.0, a lost one
0.0), shifted by a small wobble; `rank` plays each legal action through the engine and ranks the
chance after it; `check` plays nothing out: each deal's value is the chance after the action,
wobbled by the deal and the seed."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import domain

PLAY = (domain.Move, domain.Turn, domain.Discard, domain.Pass)


@dataclass(frozen=True)
class Ranked:
    action: domain.Action
    score: float
    chance: float


class CardCount:
    """Makes the stand-in watches (`server.readmodels.judge.evaluator()` returns one of these);
    `calls` records what was asked: (what, version, seed)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, int]] = []
        # How much each action's chance is lowered (a test makes mistakes out of moves).
        self.penalty: dict[str, float] = {}
        self.checked_drop: float | None = None  # what the playouts find, if a test says
        self.spread = 0.0  # every candidate but the first this much under its figure

    def __call__(self) -> FakeWatch:
        return FakeWatch(self)


class FakeWatch:
    def __init__(self, maker: CardCount) -> None:
        self.maker = maker

    def see(self, state: domain.MatchState) -> None:
        pass

    def played(self, state: domain.MatchState, action: domain.Action) -> None:
        pass

    def fork(self) -> FakeWatch:
        return self

    def chance(self, state: domain.MatchState, seat: int) -> float:
        self.maker.calls.append(("chance", state.version, 0))
        return _chance(state, seat)

    def rank(self, state: domain.MatchState, seat: int) -> list[Ranked]:
        self.maker.calls.append(("rank", state.version, 0))
        return self._ranked(state, seat)

    def _ranked(self, state: domain.MatchState, seat: int) -> list[Ranked]:
        game = state.game
        if game is None or game.over or game.to_move != seat:
            return []
        legal = [
            a
            for a in domain.legal_actions(state, seat)
            if isinstance(a, PLAY) and not (isinstance(a, domain.Turn) and a.hand is not None)
        ]
        ranked = []
        for a in legal:
            p = _chance(_after(state, a), seat) - self.maker.penalty.get(a.notation(), 0.0)
            ranked.append(Ranked(a, p, max(0.0, p)))
        ranked.sort(key=lambda r: -r.chance)
        spread = self.maker.spread
        return [
            Ranked(r.action, r.score, r.chance - (spread if k else 0.0))
            for k, r in enumerate(ranked)
        ]

    def check(
        self,
        state: domain.MatchState,
        seat: int,
        actions: Sequence[domain.Action],
        deals: int,
        seed: int,
    ) -> list[list[float]]:
        self.maker.calls.append(("check", state.version, seed))
        ranked = {r.action.notation(): r.chance for r in self._ranked(state, seat)}
        out = []
        for k, action in enumerate(actions):
            base = ranked.get(action.notation(), 0.0)
            if k == 1 and self.maker.checked_drop is not None:
                base = ranked.get(actions[0].notation(), 0.0) - self.maker.checked_drop
            out.append([base + 0.01 * _unit(seed, state.version, k, d) for d in range(deals)])
        return out


def _after(match: domain.MatchState, action: domain.Action) -> domain.MatchState:
    game = match.game
    assert game is not None
    return domain.decide_and_fold(match, domain.Act(action, game.move_started_at_ms))[1]


def _chance(match: domain.MatchState, seat: int) -> float:
    game = match.game
    assert game is not None
    if game.result is not None:
        return 1.0 if game.result.winner == seat else 0.0
    mine = game.reserve_cards(seat) * 2 + game.loose_cards(seat)
    theirs = game.reserve_cards(1 - seat) * 2 + game.loose_cards(1 - seat)
    wobble = _unit(match.version, seat) * 0.004
    return 1 / (1 + math.exp(0.08 * (mine - theirs))) * 0.99 + wobble


def _unit(*parts: Any) -> float:
    digest = hashlib.sha256(repr(parts).encode()).digest()
    return int.from_bytes(digest[:4], "big") / 2**32
