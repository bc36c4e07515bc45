"""The learning mode's judge (server/services/analyses.py, `POST …/analysis/try`) for a try the
analysis did not rank: a try's win chance at a decision the analysis judged, from the position as
the seat to move could know it, by the same engine as the analysis (`server.readmodels.judge`, issue
37). A try of a candidate the analysis ranked is answered from the analysis's own `candidates`
without coming here, so it gets exactly the figure the analysis gave it."""

from __future__ import annotations

import domain
from server.errors import quoted
from server.readmodels import judge


def judge_try(
    state: domain.MatchState, action: domain.Action, *, depth: str = "normal", seed: int = 0
) -> float:
    """The chance of `action`'s seat to win the game after it (`RulesError` if illegal): its
    figure among the judge's candidates at `state` (a watch that saw this position only, so it
    remembers no hand), or, for an action the judge does not list, the position's chance."""
    if depth not in judge.DEPTHS:
        raise judge.JudgeError(f"depth is one of {', '.join(judge.DEPTHS)}, not {quoted(depth)}")
    watch = judge.evaluator()()
    watch.see(state)
    for candidate in watch.rank(state, action.seat):
        if judge.same(candidate.action, action):
            return round(float(candidate.chance), judge.DIGITS)
    domain.check(state, action)
    game = state.game
    assert game is not None
    after = domain.decide_and_fold(state, domain.Act(action, game.move_started_at_ms))[1]
    return round(float(watch.chance(after, action.seat)), judge.DIGITS)
