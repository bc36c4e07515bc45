"""Bots for tests only, seated only when the server runs with `--test-bots`; the lobby never lists
them (`GET /api/presets` names `domain.bots` only).

`faulty` commits a fault whenever it can, so that a test of the call (a person presses
"Crapette!" after each fault) meets many faults in one short game; after `FAULTS_BEFORE_RESIGN`
faults it resigns, which ends the game (docs/web.md, "Tests")."""

from __future__ import annotations

import random

import domain
from domain.views import View

TEST_BOTS: tuple[str, ...] = ("faulty",)
FAULTS_BEFORE_RESIGN = 4

# Never chosen: a stand-in for a person who plays on (no calls, no stalemate talk).
_NEVER = {"resign", "offer-draw", "accept-draw", "call"}


class FaultyBot:
    """Plays a legal action that breaks a priority rule when there is one; otherwise a foundation
    move, else any legal action. It judges each candidate with `domain.decide` on the real state
    (a test bot may: it plays only at test servers)."""

    def __init__(self, seed: int | None = None, faults_before_resign: int = FAULTS_BEFORE_RESIGN):
        self.random = random.Random(seed)
        self.faults = 0
        self.faults_before_resign = faults_before_resign

    def choose(self, view: View) -> domain.Action | None:
        """A view is not enough to know a fault: the autopilot calls `choose_in` instead."""
        return None

    def delay_hint_ms(self, action: domain.Action) -> int:
        return 0  # it never calls

    def choose_in(self, state: domain.MatchState, seat: int, at_ms: int) -> domain.Action | None:
        game = state.game
        if game is None or game.over or game.to_move != seat:
            return None
        if self.faults >= self.faults_before_resign:
            return domain.Resign(seat=seat)
        legal = [a for a in domain.legal_actions(state, seat) if a.to_json()["do"] not in _NEVER]
        if not legal:
            return None
        faults = [a for a in legal if _is_fault(state, a, at_ms)]
        if faults:
            self.faults += 1
            return self.random.choice(faults)
        to_foundation = [a for a in legal if str(a.to_json().get("to", "")).startswith("F")]
        return self.random.choice(to_foundation or legal)


def _is_fault(state: domain.MatchState, action: domain.Action, at_ms: int) -> bool:
    try:
        events = domain.decide(state, domain.Act(action=action, at_ms=at_ms))
    except domain.RulesError:
        return False
    return any(getattr(e, "fault", None) for e in events)


def make_test_bot(name: str) -> FaultyBot:
    if name == "faulty":
        return FaultyBot()
    raise ValueError(f"unknown test bot {name!r}")
