"""An all-knowing `expert`: a bound for `crapette bench bots --all-knowing`, never a player.

It is the expert with every card face up for it: before each decision the arena shows it the
whole match (`play_match(watch=...)`), it searches on the true table, goes on through every
hand card it turns (`turns_known`) and through every reserve card it uncovers (its search never
stops at `uncovers`). Everything else, the search's budget, `sharp.evaluate`'s weights, the
shuffle guard, the calls, is the expert's. What it wins against `sharp` bounds what knowing the
cards can give a bot that searches its own turn and judges where the turn leaves the table by
that evaluation (docs/benchmarks.md § crapette bench bots).

With `replies` > 0 it also knows what `sharp` will answer: at the first `replies` different
tables where a line of its search ends its turn (a discard or a pass), it plays the opponent's
next turn out with a fresh `sharp` on the true match, and the line is worth `sharp.evaluate`
from its own seat where that turn hands the table back (a win or a loss if the game ends
there); past `replies` tables a line is judged as the expert judges it. That bounds what
modelling the opponent's reply can give.
"""

from __future__ import annotations

from typing import Any, ClassVar

import domain
from domain.bots.expert import ExpertBot, _KnownSearch
from domain.bots.sharp import LOSS, WIN, SharpBot, evaluate
from domain.moves import apply_step
from domain.piles import SHOWN, WASTE
from domain.state import GameState, MatchState, Piles
from domain.views import View

# Actions of one opponent's turn played out at most (a turn is some tens; a bound, not a cap).
_TURN_ACTIONS = 400


class _OpenSearch(_KnownSearch):
    """The expert's search of the rest of the turn on a table whose every card is true."""

    def uncovers(self, node: GameState, src: int) -> bool:
        return False


class _ReplySearch(_OpenSearch):
    """The open search whose ends of turn are judged after `sharp`'s real reply."""

    def __init__(
        self,
        root: GameState,
        seat: int,
        budget: int,
        respect: bool,
        match: MatchState,
        replies: int,
    ) -> None:
        super().__init__(root, seat, budget, respect, hand_known=True)
        self.match = match
        self.replies = replies
        self.answered: dict[Piles, float] = {}

    def ender_value(self, node: GameState, ender: str) -> float:
        value = super().ender_value(node, ender)
        if ender not in ("discard", "pass") or value >= WIN:
            return value
        p = apply_step(node.p, SHOWN[self.seat], WASTE[self.seat]) if ender == "discard" else node.p
        known = self.answered.get(p)
        if known is None and len(self.answered) < self.replies:
            known = self.answered[p] = self.after_reply(node, p)
        return value if known is None else known

    def after_reply(self, node: GameState, p: Piles) -> float:
        """`sharp.evaluate` for this seat once `sharp` has played the opponent's next turn on
        table `p` (the true cards: the match it was shown)."""
        other = 1 - self.seat
        state = self.match.with_game(
            node._evolved(p=p, to_move=other, seen=frozenset()), self.match.version
        )
        rival = SharpBot(seed="reply")
        now = max(node.move_started_at_ms, 0)
        for _ in range(_TURN_ACTIONS):
            game = state.game
            assert game is not None
            if game.over:
                winner = game.result.winner if game.result is not None else None
                return WIN if winner == self.seat else LOSS
            if game.to_move != other:
                break
            action = rival.choose(domain.view(state, other))
            if action is None:
                break
            now += 1000
            _, state = domain.decide_and_fold(state, domain.Act(action, now))
        game = state.game
        assert game is not None
        return evaluate(game, game.p, self.seat, turn_over=False)


class AllKnowingExpert(ExpertBot):
    name: ClassVar[str] = "expert"

    def __init__(self, replies: int = 0, **options: Any) -> None:
        super().__init__(**options)
        self.replies = replies
        self._truth: GameState | None = None
        self._match: MatchState | None = None

    def watch(self, state: MatchState) -> None:
        """Shown the whole match before every decision (the arena's `watch`)."""
        self._truth, self._match = state.game, state

    def table(self, view: View, game: GameState) -> tuple[GameState, bool]:
        if self._truth is None:
            raise RuntimeError("the all-knowing expert plays only where the arena shows it all")
        return self._truth, True

    def search(self, game: GameState, seat: int, respect: bool, hand_known: bool) -> _KnownSearch:
        if self.replies and self._match is not None:
            budget = self.options.budget
            return _ReplySearch(game, seat, budget, respect, self._match, self.replies)
        return _OpenSearch(game, seat, self.options.budget, respect, hand_known=True)
