"""The knobs of a bot, and the human-like timing hints it gives the server."""

from __future__ import annotations

import random
from dataclasses import dataclass, fields
from typing import Any

from domain.bots.errors import BotOptionError
from domain.errors import quote


@dataclass(frozen=True, slots=True)
class BotOptions:
    """What `make_bot(name, **options)` accepts; the defaults depend on the strength.

    - `seed`: makes the bot's own coin flips repeatable (any int or text; None = fresh).
    - `miss_call_rate`: the chance (0..1) of not calling Crapette on an opponent's fault.
    - `fault_rate`: in `call` mode, the chance per decision of playing a priority-breaking action
      instead of the proper one, as a careless person would.
    - `call_delay_ms`: how long, on average, a person takes to shout "Crapette!"; the server waits
      that long before it sends the call (the window may close in between, as at a real table).
    - `move_delay_ms`: the same hint for ordinary actions.
    - `budget`: how many positions `sharp` may look at per decision (ignored by the others).
    """

    seed: int | str | None = None
    miss_call_rate: float = 0.0
    fault_rate: float = 0.0
    call_delay_ms: int = 1200
    move_delay_ms: int = 700
    budget: int = 400

    def __post_init__(self) -> None:
        for name in ("miss_call_rate", "fault_rate"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
                raise BotOptionError(f"{name} is a probability between 0 and 1, not {quote(value)}")
        for name in ("call_delay_ms", "move_delay_ms", "budget"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise BotOptionError(f"{name} is a whole number ≥ 0, not {quote(value)}")

    @classmethod
    def build(cls, defaults: dict[str, Any], given: dict[str, Any]) -> BotOptions:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(given) - known)
        if unknown:
            raise BotOptionError(
                f"unknown bot option(s): {', '.join(unknown)} (known: {', '.join(sorted(known))})"
            )
        return cls(**{**defaults, **given})

    def rng(self) -> random.Random:
        # A text seed is hashed by `random` itself, deterministically across runs (not hash()).
        return random.Random(self.seed)
