"""Errors of the rules engine: each says what went wrong in words a player can read."""

from __future__ import annotations

import re


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
