"""The tournament's refusals: a `RulesError` like the game's, so the server answers both alike."""

from __future__ import annotations

from domain.errors import RulesError


class TournamentError(RulesError):
    """A tournament command the rules refuse: `.rule` a short stable code (``not registered``,
    ``round running``…), `.message` a sentence for the director or the player."""
