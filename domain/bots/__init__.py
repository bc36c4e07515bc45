"""Bots: players made of code that play from a seat's view, never from the full state.

`make_bot(name, **options)` builds one of the strengths in `BOT_NAMES`; each has
`choose(view) -> Action | None` and `delay_hint_ms(action)`. docs/bots.md describes them.
"""

from __future__ import annotations

from typing import Any

from domain.bots.base import Bot
from domain.bots.errors import BotError, BotOptionError, NotAViewError, UnknownBotError
from domain.bots.expert import ExpertBot
from domain.bots.options import BotOptions
from domain.bots.random_bot import RandomBot
from domain.bots.sharp import SharpBot
from domain.bots.steady import SteadyBot
from domain.errors import quote

BOTS: dict[str, type[Bot]] = {
    "random": RandomBot,
    "steady": SteadyBot,
    "sharp": SharpBot,
    "expert": ExpertBot,
}
BOT_NAMES: tuple[str, ...] = tuple(BOTS)
BOT_DESCRIPTIONS: dict[str, str] = {
    "random": "Plays any legal action; misses half the Crapette calls.",
    "steady": "Plays sound moves one at a time: reserve first, loads you, no idle shuffles.",
    "sharp": "Looks ahead through its whole turn before it turns a card; rarely misses a call.",
    "expert": (
        "Remembers the wastes turned over into hands and plans its turn through the cards it "
        "knows; rarely misses a call."
    ),
}


def make_bot(name: str, **options: Any) -> Bot:
    """A new bot of that strength; `options` as in `BotOptions` (seed, miss_call_rate, …)."""
    try:
        cls = BOTS[name]
    except KeyError:
        raise UnknownBotError(
            f"unknown bot {quote(name)} (known: {', '.join(BOT_NAMES)})"
        ) from None
    return cls(**options)


__all__ = [
    "BOTS",
    "BOT_DESCRIPTIONS",
    "BOT_NAMES",
    "Bot",
    "BotError",
    "BotOptionError",
    "BotOptions",
    "NotAViewError",
    "UnknownBotError",
    "make_bot",
]
