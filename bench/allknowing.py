"""An all-knowing `expert`: a bound for `crapette bench bots --all-knowing`, never a player.

It is the expert with every card face up for it: before each decision the arena shows it the
whole match (`play_match(watch=...)`), it searches on the true table, goes on through every
hand card it turns (`turns_known`) and through every reserve card it uncovers (its search never
stops at `uncovers`). Everything else, the search's budget, `sharp.evaluate`'s weights, the
shuffle guard, the calls, is the expert's. What it wins against `sharp` bounds what knowing the
cards can give a bot that searches its own turn and judges where the turn leaves the table by
that evaluation (docs/benchmarks.md § The expert's ceiling).
"""

from __future__ import annotations

from typing import Any, ClassVar

from domain.bots.expert import ExpertBot, _KnownSearch
from domain.state import GameState, MatchState
from domain.views import View


class _OpenSearch(_KnownSearch):
    """The expert's search of the rest of the turn on a table whose every card is true."""

    def uncovers(self, node: GameState, src: int) -> bool:
        return False


class AllKnowingExpert(ExpertBot):
    name: ClassVar[str] = "expert"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._truth: GameState | None = None

    def watch(self, state: MatchState) -> None:
        """Shown the whole match before every decision (the arena's `watch`)."""
        self._truth = state.game

    def table(self, view: View, game: GameState) -> tuple[GameState, bool]:
        if self._truth is None:
            raise RuntimeError("the all-knowing expert plays only where the arena shows it all")
        return self._truth, True

    def search(self, game: GameState, seat: int, respect: bool, hand_known: bool) -> _KnownSearch:
        return _OpenSearch(game, seat, self.options.budget, respect, hand_known=True)
