"""placeholder"""

from __future__ import annotations

from typing import ClassVar

from domain.bots.steady import SteadyBot


class SharpBot(SteadyBot):
    name: ClassVar[str] = "sharp"
