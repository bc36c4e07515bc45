"""`sharp`: looks ahead through its own turn before committing to it.

At each decision it searches the sequences of moves it could make with the cards it can see (a
depth-first search with a transposition table, bounded by `budget` positions), stopping a line
where new information would appear: a reserve card uncovered, a hand card turned, the turn ended.
It then scores those end points (`evaluate`) and plays the first step of the best line. The
search runs on a mirror of the view (`domain.bots.mirror`) with the engine's own building and
priority rules, so it plays every preset without rules of its own.

The best choice found for every position searched is kept for the rest of the turn: as long as
the table is what the search expected, the next steps need no new search.
"""

from __future__ import annotations

from typing import Any, ClassVar

from domain.actions import Discard, Move, Pass, Turn
from domain.bots.base import Bot, PlayAction
from domain.bots.mirror import ruleset_of
from domain.levels import Step
from domain.moves import apply_step, houses_of
from domain.piles import (
    ALL_PILES,
    FIRST_FOUNDATION,
    FIRST_HOUSE,
    FOUNDATIONS,
    HOUSES,
    INDEX,
    RESERVE,
    SECOND_RESERVE,
    SHOWN,
    WASTE,
)
from domain.priority import legal_steps, priority
from domain.state import GameState, Piles, hand_cards, loose_count, reserve_count

Choice = Step | str  # a move, or "turn" / "discard" / "pass"

_FOUNDATIONS = frozenset(FOUNDATIONS)
WIN = 10_000.0
LOSS = -WIN

# Weights of `evaluate` (cards are counted as a stalemate penalty counts them, reserve double).
RESERVE_CARD = 10.0  # a card still in one's reserve: the heart of the game
LOOSE_CARD = 1.0  # a card in one's hand, X or waste
OPPONENT_RESERVE = 6.0  # a card loaded on the opponent's reserve
OPPONENT_LOOSE = 1.0
FOUNDATION_CARD = 0.3  # progress that helps both, but keeps the game moving
EMPTY_HOUSE_MID = 2.0  # mid-turn an empty house is room for the next reserve card…
EMPTY_HOUSE_END = -1.5  # …at the end of the turn it is the opponent's room
TURN_ON = 3.0  # a turn that goes on (a new hand card) is worth more than one that ends
UNCOVERED = 2.0  # a freshly uncovered reserve card may play on
THREAT_RESERVE = 3.0  # per move the opponent's reserve top will have
THREAT_LOAD = 2.0  # per card the opponent could load onto my reserve or waste
STEP_COST = 0.01  # of two equally good lines, the shorter: no idle shuffles


def evaluate(game: GameState, p: Piles, seat: int, turn_over: bool) -> float:
    """How good the table `p` is for `seat` (higher is better), mid-turn or at its end."""
    other = 1 - seat
    value = (
        OPPONENT_RESERVE * reserve_count(p, other)
        - RESERVE_CARD * reserve_count(p, seat)
        + OPPONENT_LOOSE * loose_count(p, other)
        - LOOSE_CARD * loose_count(p, seat)
        + FOUNDATION_CARD * sum(map(len, p[FOUNDATIONS[0] : FOUNDATIONS[-1] + 1]))
    )
    # Houses that do not exist in a two-house layout are always empty: leave them out.
    empty = p[FIRST_HOUSE:FIRST_FOUNDATION].count(()) - (
        len(HOUSES) - 2 * game.ruleset.houses_per_player
    )
    if not turn_over:
        return value + EMPTY_HOUSE_MID * empty
    value += EMPTY_HOUSE_END * empty
    # What the opponent can do at once with what this turn leaves him.
    after = game._evolved(p=p, to_move=other, seen=frozenset())
    mine = (RESERVE[seat], SECOND_RESERVE[seat], WASTE[seat])
    theirs = (RESERVE[other], SECOND_RESERVE[other])
    for src, dst in legal_steps(after, other):
        if src in theirs:
            value -= THREAT_RESERVE
        if dst in mine:
            value -= THREAT_LOAD
    return value


class _Search:
    """One decision's look-ahead through the rest of the turn."""

    def __init__(self, root: GameState, seat: int, budget: int, respect: bool) -> None:
        self.root = root
        self.seat = seat
        self.budget = budget
        self.respect = respect  # keep to the priorities (call and enforce modes)
        self.memo: dict[Piles, float] = {}
        self.best: dict[Piles, Choice] = {}
        # When a dict: the value of each choice at every position searched, as the search
        # weighed it when it chose (the `expert` keeps them with its plan: the judge ranks
        # with them, domain/evaluator/judging.py).
        self.weighed: dict[Piles, dict[Choice, float]] | None = None
        self.houses = frozenset(houses_of(root))
        self.win_needs_waste = root.ruleset.win == "reserve_hand_waste"

    def choices(self, node: GameState) -> tuple[list[Step], list[str]]:
        seat, p = self.seat, node.p
        steps = legal_steps(node, seat)
        enders: list[str] = []
        turn_ok = discard_ok = pass_ok = True
        if self.respect:
            level = priority(node, seat)
            if level.required is not None:
                return [s for s in steps if s in level.required], []
            steps = [s for s in steps if s not in level.bad_steps]
            turn_ok, discard_ok = level.turn_rule is None, level.end_rule is None
        if p[SHOWN[seat]]:
            if discard_ok:
                enders.append("discard")
        elif hand_cards(p, seat) or p[WASTE[seat]]:
            if turn_ok:
                enders.append("turn")
        elif pass_ok:
            enders.append("pass")
        return steps, enders

    def won(self, p: Piles) -> bool:
        seat = self.seat
        if p[RESERVE[seat]] or p[SHOWN[seat]] or p[SECOND_RESERVE[seat]] or hand_cards(p, seat):
            return False
        return not (p[WASTE[seat]] and self.win_needs_waste)

    def ender_value(self, node: GameState, ender: str) -> float:
        seat, p = self.seat, node.p
        if ender == "turn":
            return evaluate(node, p, seat, turn_over=False) + TURN_ON
        if ender == "discard":
            p = apply_step(p, SHOWN[seat], WASTE[seat])
            if self.won(p):
                return WIN
        return evaluate(node, p, seat, turn_over=True)

    def value(self, node: GameState) -> float:
        key = node.p
        known = self.memo.get(key)
        if known is not None:
            return known
        if self.budget <= 0:
            return evaluate(node, node.p, self.seat, turn_over=False)
        self.budget -= 1
        self.memo[key] = LOSS  # in progress: a line that comes back here is worthless
        steps, enders = self.choices(node)
        best_value = LOSS
        best_choice: Choice | None = None
        weighed: dict[Choice, float] | None = None
        if self.weighed is not None:
            weighed = self.weighed[key] = {}
        for ender in enders:
            v = self.ender_value(node, ender)
            if weighed is not None:
                weighed[ender] = v
            if v > best_value:
                best_value, best_choice = v, ender
        for step in steps:
            v = self.step_value(node, step)
            if weighed is not None:
                weighed[step] = v
            if v > best_value:
                best_value, best_choice = v, step
        if best_choice is None:  # nothing to do in a line the search invented
            best_value = evaluate(node, node.p, self.seat, turn_over=True)
        else:
            self.best[key] = best_choice
        self.memo[key] = best_value
        return best_value

    def uncovers(self, node: GameState, src: int) -> bool:
        """Whether taking the top card of `src` brings a face-down reserve card up."""
        return (src == RESERVE[self.seat] or src == SECOND_RESERVE[self.seat]) and len(
            node.p[src]
        ) > 1

    def step_value(self, node: GameState, step: Step) -> float:
        src, dst = step
        p = apply_step(node.p, src, dst)
        if self.won(p):
            return WIN
        if self.uncovers(node, src):
            # A face-down card comes up: stop here, without looking at the mirror's stand-in.
            return evaluate(node, p, self.seat, turn_over=False) + UNCOVERED - STEP_COST
        return self.going_on(node, p) - STEP_COST

    def going_on(self, node: GameState, p: Piles) -> float:
        """The value of the turn going on from table `p` (reached from `node`): searched, or
        judged as it stands once the budget is spent."""
        known = self.memo.get(p)
        if known is None and self.budget <= 0:
            known = evaluate(node, p, self.seat, turn_over=False)  # out of time: judge as is
        elif known is None:
            known = self.value(node._evolved(p=p, seen=frozenset()))
        return known


class SharpBot(Bot):
    name: ClassVar[str] = "sharp"
    DEFAULTS: ClassVar[dict[str, Any]] = {
        "miss_call_rate": 0.0,
        "fault_rate": 0.0,
        "call_delay_ms": 900,
        "budget": 120,
    }
    NAMES_CALLS: ClassVar[bool] = True

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._plan: dict[Piles, Choice] = {}
        self._plan_turn: tuple[int | None, int] = (None, -1)

    def pick(self, view: Any, game: GameState, plays: list[PlayAction]) -> PlayAction:
        seat = view.viewer
        turn = (view.game_index, view.turn_number)
        if turn != self._plan_turn:
            self._plan, self._plan_turn = {}, turn
        choice = self._plan.get(game.p)
        action = _action(seat, choice) if choice is not None else None
        if action is None or action not in plays:
            respect = ruleset_of(view).enforcement != "lenient"
            search = _Search(game, seat, self.options.budget, respect)
            search.value(game._evolved(seen=frozenset()))
            self._plan.update(search.best)
            action = _best_allowed(search, game, seat, plays)
        return action


def _action(seat: int, choice: Choice) -> PlayAction:
    if choice == "turn":
        return Turn(seat)
    if choice == "discard":
        return Discard(seat)
    if choice == "pass":
        return Pass(seat)
    assert not isinstance(choice, str)
    return Move(seat, ALL_PILES[choice[0]], ALL_PILES[choice[1]])


def _best_allowed(
    search: _Search, game: GameState, seat: int, plays: list[PlayAction]
) -> PlayAction:
    """The best first step that the engine really allows now (its repetition guard knows
    layouts of this turn that the view does not show). Ties go to ending moves, then to the
    earliest in the engine's order."""
    planned = search.best.get(game.p)
    if planned is not None and _action(seat, planned) in plays:
        return _action(seat, planned)
    scored: list[tuple[float, int, PlayAction]] = []
    for order, action in enumerate(plays):
        if isinstance(action, Move):
            v = search.step_value(game, (INDEX[action.src], INDEX[action.dst]))
        else:
            # A turn from any hand looks alike: the card is face down wherever it lies.
            v = search.ender_value(game, "turn" if isinstance(action, Turn) else action.notation())
        scored.append((v, order if not isinstance(action, Move) else -order, action))
    return max(scored, key=lambda item: (item[0], item[1]))[2]
