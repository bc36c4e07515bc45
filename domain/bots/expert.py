"""`expert`: plays the action the evaluator gives the best chance of winning the game.

At each decision of its own turn it asks the evaluator (`domain.evaluator`, docs/evaluator.md)
for the win chance after each proper play action: the rest of the turn is searched on
determinizations of its view, the positions where the search stops judged by the value function
fitted on self-play. Like every bot it sees the table only through its view: the position the
evaluator is given is the view's mirror (`domain.bots.mirror`), whose face-down places hold
stand-ins the evaluator replaces by its own samples. It calls faults as `sharp` does.
"""

from __future__ import annotations

from typing import Any, ClassVar

from domain.bots.base import Bot, PlayAction
from domain.bots.mirror import as_match
from domain.evaluator import score_actions
from domain.state import GameState
from domain.views import View


class ExpertBot(Bot):
    name: ClassVar[str] = "expert"
    DEFAULTS: ClassVar[dict[str, Any]] = {
        "miss_call_rate": 0.0,
        "fault_rate": 0.0,
        "call_delay_ms": 900,
    }
    NAMES_CALLS: ClassVar[bool] = True
    DEPTH: ClassVar[str] = "normal"

    def play(self, view: View, game: GameState, plays: list[PlayAction]) -> PlayAction:
        if len(plays) == 1:
            return plays[0]
        seat = view.viewer if view.viewer is not None else game.to_move
        seed = self.rng.randrange(2**31)
        match = as_match(game)._replace(version=view.version)
        chances = score_actions(match, seat, list(plays), depth=self.DEPTH, seed=seed)
        # The best chance; of equal ones, the earliest in the engine's order.
        best = max(range(len(plays)), key=lambda i: (chances[i], -i))
        return plays[best]
