"""The Russian Bank rules engine: pure, standard library only."""

from domain.cards import Card
from domain.errors import DomainError, NotationError, RulesError, RulesetError
from domain.ruleset import PRESET_DESCRIPTIONS, PRESETS, Ruleset

__all__ = [
    "PRESETS",
    "PRESET_DESCRIPTIONS",
    "Card",
    "DomainError",
    "NotationError",
    "RulesError",
    "Ruleset",
    "RulesetError",
]
