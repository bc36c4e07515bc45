"""Errors of the bots: each says what was wrong in words a person can read."""

from __future__ import annotations

from domain.errors import DomainError


class BotError(DomainError):
    """Base of every bot error."""


class UnknownBotError(BotError, KeyError):
    """`make_bot` was asked for a strength that does not exist."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown bot"


class BotOptionError(BotError, ValueError):
    """An unknown bot option or a value out of range."""


class NotAViewError(BotError, TypeError):
    """A bot was handed something other than a seat's view (a full state would leak cards)."""
