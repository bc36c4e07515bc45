"""Bots seated at tables: the ones of `domain.bots`, by name, and the stand-in that plays for a
bot that failed (a table with a bot always plays on)."""

from __future__ import annotations

import random
from typing import Any

import domain
from domain.bots import make_bot as make_domain_bot

# Actions a stand-in bot never chooses: it plays on, and it never calls (a wrong call is noise).
_NEVER = {"resign", "offer-draw", "accept-draw", "offer_draw", "accept_draw", "call"}


class RandomLegalBot:
    """Plays a foundation move when it has one, else any legal action at random."""

    def __init__(self, seed: int | None = None) -> None:
        self.random = random.Random(seed)

    def choose(self, view: Any) -> Any:
        legal = [a for a in view.to_json().get("legal", []) if a.get("do") not in _NEVER]
        if not legal:
            return None
        to_foundation = [a for a in legal if str(a.get("to", "")).startswith("F")]
        chosen = dict(self.random.choice(to_foundation or legal))
        chosen.pop("text", None)
        return domain.action_from_json(chosen)


def make_bot(name: str) -> Any:
    """The bot of that name (`domain.bots.BOT_NAMES`; the schemas let no other name through)."""
    return make_domain_bot(name)
