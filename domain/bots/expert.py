"""`expert`: `sharp`'s look-ahead through its own turn, plus a look at the opponent's reply.

`sharp` searches the rest of its turn and judges where each line ends by a hand-made evaluation
(`sharp.evaluate`), which guesses what the opponent can do next from his moves of one step (the
threat and load terms). The expert runs the same search (`sharp._Search`), but wherever a line
ends the turn (a discard, a pass) it searches the opponent's reply as well: the moves he could
make at once on that table, with `sharp`'s own search from his seat, up to the point where he
would turn a hand card or uncover a reserve card. The line is then judged by `sharp.evaluate`
(from the expert's seat) on the table that reply leaves, and the expert plays towards the end of
turn whose best reply hurts it least: the line that minimises the opponent's best reply, where
`sharp` counts only his moves of one step.

Like `sharp`, it plays from the view's mirror (`domain.bots.mirror`) and never looks at a
face-down card: both searches stop where one would come up, so the mirror's stand-ins for them
are never read. Within a turn it never moves a card between houses back to a layout already
seen, and plays no more than 12 house-to-house moves (every game ends). It calls faults as
`sharp` does.
"""

from __future__ import annotations

from typing import Any, ClassVar

from domain.actions import Move
from domain.bots.base import Bot, PlayAction
from domain.bots.mirror import ruleset_of
from domain.bots.sharp import LOSS, WIN, Choice, _action, _best_allowed, _Search, evaluate
from domain.moves import apply_step, houses_of
from domain.piles import INDEX, RESERVE, SECOND_RESERVE, SHOWN, WASTE
from domain.state import GameState, Piles
from domain.views import View


class _ReplySearch(_Search):
    """`sharp`'s search of the rest of the turn, whose ends of turn are judged after the
    opponent's best reply: his moves on that table, found by `sharp`'s search from his seat
    (`reply_budget` positions), up to where he would turn a hand card or uncover a reserve
    card."""

    def __init__(
        self, root: GameState, seat: int, budget: int, respect: bool, reply_budget: int
    ) -> None:
        super().__init__(root, seat, budget, respect)
        self.reply_budget = reply_budget
        self.replies: dict[Piles, float] = {}

    def ender_value(self, node: GameState, ender: str) -> float:
        value = super().ender_value(node, ender)
        if ender == "turn" or value >= WIN:
            return value
        p = apply_step(node.p, SHOWN[self.seat], WASTE[self.seat]) if ender == "discard" else node.p
        return self.after_reply(node, p)

    def after_reply(self, node: GameState, p: Piles) -> float:
        """`sharp.evaluate` at the end of this turn (table `p`), taken once the opponent has
        made the moves his best line of reply starts with."""
        known = self.replies.get(p)
        if known is not None:
            return known
        other = 1 - self.seat
        start = node._evolved(p=p, to_move=other, seen=frozenset(), emptied=frozenset())
        reply = _Search(start, other, self.reply_budget, self.respect)
        reply.value(start)
        q = p
        for _ in range(self.reply_budget):  # a line never repeats a table; bounded anyway
            choice = reply.best.get(q)
            if choice is None or isinstance(choice, str):
                break
            src, dst = choice
            uncovers = src in (RESERVE[other], SECOND_RESERVE[other]) and len(q[src]) > 1
            q = apply_step(q, src, dst)
            if uncovers:  # what comes up is face down in the view: the line stops here
                break
        value = LOSS if reply.won(q) else evaluate(start, q, self.seat, turn_over=True)
        self.replies[p] = value
        return value


class ExpertBot(Bot):
    name: ClassVar[str] = "expert"
    DEFAULTS: ClassVar[dict[str, Any]] = {
        "miss_call_rate": 0.0,
        "fault_rate": 0.0,
        "call_delay_ms": 900,
        "budget": 120,
    }
    NAMES_CALLS: ClassVar[bool] = True
    # House-to-house moves in one turn: past this many, none (the rest of the turn is play).
    SHUFFLES_PER_TURN: ClassVar[int] = 12
    # Positions searched for the opponent's reply at each end of turn.
    REPLY_BUDGET: ClassVar[int] = 40

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._turn: tuple[int | None, int] | None = None
        self._seen: set[tuple[tuple[Any, ...], ...]] = set()
        self._shuffles = 0
        self._plan: dict[Piles, Choice] = {}

    def play(self, view: View, game: GameState, plays: list[PlayAction]) -> PlayAction:
        plays = self._no_shuffling_back(view, game, plays)
        seat = view.viewer if view.viewer is not None else game.to_move
        choice = self._plan.get(game.p)
        action = _action(seat, choice) if choice is not None else None
        if action is None or action not in plays:
            if len(plays) == 1:
                action = plays[0]
            else:
                respect = ruleset_of(view).enforcement != "lenient"
                search = _ReplySearch(game, seat, self.options.budget, respect, self.REPLY_BUDGET)
                search.value(game._evolved(seen=frozenset()))
                self._plan.update(search.best)
                action = _best_allowed(search, game, seat, plays)
        if _shuffle(game, action) is not None:
            self._shuffles += 1
        return action

    def _no_shuffling_back(
        self, view: View, game: GameState, plays: list[PlayAction]
    ) -> list[PlayAction]:
        """Leave out the house-to-house moves that lay the houses out as they already were in
        this turn, and all of them past `SHUFFLES_PER_TURN`: a turn of moves back and forth
        would never end."""
        turn = (view.game_index, view.turn_number)
        if turn != self._turn:
            self._turn, self._seen, self._shuffles, self._plan = turn, set(), 0, {}
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
