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

from domain.actions import Move
from domain.bots.base import Bot, PlayAction
from domain.bots.mirror import as_match
from domain.evaluator import score_actions
from domain.moves import houses_of
from domain.piles import INDEX
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
    # House-to-house moves in one turn: past this many, none (the rest of the turn is play).
    SHUFFLES_PER_TURN: ClassVar[int] = 12

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._turn: tuple[int | None, int] | None = None
        self._seen: set[tuple[tuple[Any, ...], ...]] = set()
        self._shuffles = 0

    def play(self, view: View, game: GameState, plays: list[PlayAction]) -> PlayAction:
        plays = self._no_shuffling_back(view, game, plays)
        if len(plays) == 1:
            return plays[0]
        seat = view.viewer if view.viewer is not None else game.to_move
        seed = self.rng.randrange(2**31)
        match = as_match(game)._replace(version=view.version)
        chances = score_actions(match, seat, list(plays), depth=self.DEPTH, seed=seed)
        # The best chance; of equal ones, the earliest in the engine's order.
        best = max(range(len(plays)), key=lambda i: (chances[i], -i))
        if _shuffle(game, plays[best]) is not None:
            self._shuffles += 1
        return plays[best]

    def _no_shuffling_back(
        self, view: View, game: GameState, plays: list[PlayAction]
    ) -> list[PlayAction]:
        """Leave out the house-to-house moves that lay the houses out as they already were in
        this turn, and all of them past `SHUFFLES_PER_TURN`: the evaluator may value two
        layouts alike, and a turn of moves back and forth would never end."""
        turn = (view.game_index, game.turn_number)
        if turn != self._turn:
            self._turn, self._seen, self._shuffles = turn, set(), 0
        houses = sorted(houses_of(game))
        self._seen.add(tuple(tuple(game.p[i]) for i in houses))
        kept = []
        for action in plays:
            after = _shuffle(game, action)
            if after is None or (
                self._shuffles < self.SHUFFLES_PER_TURN and after not in self._seen
            ):
                kept.append(action)
        return kept or plays


def _shuffle(game: GameState, action: PlayAction) -> tuple[tuple[Any, ...], ...] | None:
    """The houses' layout after `action` when it moves a card from one house to another."""
    if not isinstance(action, Move):
        return None
    houses = sorted(houses_of(game))
    src, dst = INDEX[action.src], INDEX[action.dst]
    if src not in houses or dst not in houses or not game.p[src]:
        return None
    piles = {i: list(game.p[i]) for i in houses}
    piles[dst].append(piles[src].pop())
    return tuple(tuple(piles[i]) for i in houses)
