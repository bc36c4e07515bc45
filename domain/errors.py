"""Errors of the rules engine: each says what went wrong in words a player can read."""

from __future__ import annotations

import re

# An error quotes at most this many characters of a value it refuses: a 900 KB bogus field gets
# an answer of a few hundred bytes, not twice its size (docs/protocol.md § Errors).
QUOTE_CHARS = 40


def clipped(text: str, limit: int = QUOTE_CHARS) -> str:
    """`text`, cut to `limit` characters with an ellipsis when longer."""
    return text if len(text) <= limit else text[:limit] + "…"


def quote(value: object, limit: int = QUOTE_CHARS) -> str:
    """A refused value as an error message quotes it: a string in quotes with its control
    characters escaped (as `repr`), anything else as Python writes it, at most `limit`
    characters of it. The one helper of every message that quotes input, domain and server."""
    if isinstance(value, str):
        return repr(clipped(value, limit))
    return clipped(repr(value), limit)


class DomainError(Exception):
    """Base of every error the rules engine raises."""


class NotationError(DomainError, ValueError):
    """A card, pile or action text (or JSON) that does not parse."""


class RulesetError(DomainError, ValueError):
    """An unknown ruleset option, value or preset."""


class RulesError(DomainError):
    """An action or command the rules refuse.

    `rule` is a short stable code (``building``, ``not your turn``, ``priority: ...``) that
    clients and tests may match on; `message` is a sentence for the player. `reason` names the
    message itself (``empty_foundation_ace``; by default `rule` as a word) and `params` the
    cards (``7H``) and piles (``T3``) it mentions, so that a client can say it in its own
    language.
    """

    def __init__(
        self, rule: str, message: str, reason: str | None = None, **params: str | int
    ) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message
        self.reason = reason or re.sub(r"\W+", "_", rule).strip("_").lower()
        self.params = params
