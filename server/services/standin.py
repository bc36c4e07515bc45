"""The stand-in that plays for a seated bot that failed (a table with a bot always plays on); the
bots themselves are `domain.bots`."""

from __future__ import annotations

import random

import domain

# Actions a stand-in bot never chooses: it plays on, and it never calls (a wrong call is noise).
_NEVER = {"resign", "offer-draw", "accept-draw", "call"}


class RandomLegalBot:
    """Plays a foundation move when it has one, else any legal action at random."""

    def __init__(self, seed: int | None = None) -> None:
        self.random = random.Random(seed)

    def choose(self, view: domain.View) -> domain.Action | None:
        legal = [a for a in view.to_json().get("legal", []) if a.get("do") not in _NEVER]
        if not legal:
            return None
        to_foundation = [a for a in legal if str(a.get("to", "")).startswith("F")]
        chosen = dict(self.random.choice(to_foundation or legal))
        chosen.pop("text", None)
        return domain.action_from_json(chosen)

    def delay_hint_ms(self, action: domain.Action) -> int:
        """It never calls, so it never waits to."""
        return 0
