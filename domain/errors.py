"""Errors of the rules engine: each says what went wrong in words a player can read."""

from __future__ import annotations


class DomainError(Exception):
    """Base of every error the rules engine raises."""


class NotationError(DomainError, ValueError):
    """A card, pile or action text (or JSON) that does not parse."""


class RulesetError(DomainError, ValueError):
    """An unknown ruleset option, value or preset."""


class RulesError(DomainError):
    """An action or command the rules refuse.

    `rule` is a short stable code (``building``, ``not your turn``, ``priority: ...``) that
    clients and tests may match on; `message` is a sentence for the player.
    """

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message
