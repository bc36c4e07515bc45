"""`random`: any legal play action, faults included (in `call` mode it is easy prey)."""

from __future__ import annotations

from typing import Any, ClassVar

from domain.bots.base import Bot


class RandomBot(Bot):
    name: ClassVar[str] = "random"
    DEFAULTS: ClassVar[dict[str, Any]] = {"miss_call_rate": 0.5, "call_delay_ms": 2500}
    AVOIDS_FAULTS: ClassVar[bool] = False
    NAMES_HANDS: ClassVar[bool] = True  # any hand of three (§10), as any other legal action
