"""The learning mode's judge (server/services/analyses.py, `POST …/analysis/try`): a try's win
chance at a decision the analysis judged, from the position as the seat to move could know it. It
asks the same evaluator as the analysis (`records.judge`, with the same depth and seed), so a try of
the best move found gets exactly the best move's chance, and any other move the chance the
analysis's ranking gave it."""

from __future__ import annotations

import domain
from records import judge
from server.errors import quoted


def chance_after(
    state: domain.MatchState, action: domain.Action, *, depth: str = "normal", seed: int = 0
) -> float:
    """The chance of `action`'s seat to win the game after it (`RulesError` if illegal)."""
    if depth not in judge.DEPTHS:
        raise judge.JudgeError(f"depth is one of {', '.join(judge.DEPTHS)}, not {quoted(depth)}")
    ranking = judge.evaluator().rank_actions(state, action.seat, depth=depth, seed=seed)
    key = judge.action_key(action)
    for listed, chance in ranking:
        if judge.action_key(listed) == key:
            return round(float(chance), judge.DIGITS)
    return round(
        float(judge.evaluator().chance_after(state, action, depth=depth, seed=seed)), judge.DIGITS
    )
