"""The look-ahead: every candidate action of the seat to move, tried on the same
determinizations of its view, the rest of the turn searched, and the positions where the search
stops judged by the value function.

After a candidate action the search goes on through the mover's own turn like the `sharp` bot's
(a depth-first search over the moves the building rules and priorities allow, with a
transposition table, at most `budget` positions), and stops a line where something new would
be seen or the turn ends:

- a face-down reserve card comes up, or a hand card is turned: a *chance* point, worth the
  average over the determinizations of the value function with each one's card there;
- a discard or a pass ends the turn: one minus the value function for the opponent;
- the game is won: 1.

A line is worth its best continuation (the mover chooses), and a candidate its value. The tree
is built first and its stopping points judged in one call of the model (`value.Model`), so that
the numpy work is done in one batch per decision. docs/evaluator.md has the depths' costs.
"""

from __future__ import annotations

import random
from contextlib import suppress
from dataclasses import dataclass

from domain.actions import Action, Call, Discard, Move, Pass, Turn
from domain.cards import Card
from domain.commands import Act
from domain.engine import legal_actions, play
from domain.errors import RulesError, quote
from domain.evaluator.features import context, features
from domain.evaluator.sampling import Sampler, as_match, strip
from domain.evaluator.value import model
from domain.moves import apply_step
from domain.piles import (
    FIRST_FOUNDATION,
    FIRST_HOUSE,
    HANDS,
    INDEX,
    RESERVE,
    SECOND_RESERVE,
    SHOWN,
    WASTE,
)
from domain.priority import legal_steps, priority
from domain.state import GameState, MatchState, Piles, hand_cards

DEPTHS: tuple[str, ...] = ("quick", "normal", "deep")


@dataclass(frozen=True, slots=True)
class Depth:
    samples: int  # determinizations a candidate that uncovers a card is averaged over
    inner: int  # of them, those a card coming up later in the turn is averaged over
    budget: int  # positions the search of the rest of the turn may expand, per decision


SETTINGS: dict[str, Depth] = {
    "quick": Depth(samples=2, inner=1, budget=0),
    "normal": Depth(samples=4, inner=2, budget=40),
    "deep": Depth(samples=16, inner=6, budget=200),
}


def settings(depth: str) -> Depth:
    try:
        return SETTINGS[depth]
    except (KeyError, TypeError):
        raise ValueError(f"unknown depth {quote(depth)} (known: {', '.join(DEPTHS)})") from None


def outcome(game: GameState, seat: int) -> float:
    """A finished game's value for `seat`: 1 won, 0 lost, 0.5 stalemate."""
    result = game.result
    if result is None or result.winner is None:
        return 0.5
    return 1.0 if result.winner == seat else 0.0


def static_value(game: GameState, seat: int) -> float:
    """The value function's chance for `seat` in `game` as it stands (faces up only)."""
    if game.over:
        return outcome(game, seat)
    chance = model()([features(game)])[0]
    return chance if game.to_move == seat else 1.0 - chance


def reveals(game: GameState, action: Action) -> bool:
    """Does the action bring a face-down card up (so its result depends on the sample)?"""
    seat = action.seat
    if isinstance(action, Turn):
        return hand_cards(game.p, seat) > 0
    if isinstance(action, Move):
        src = INDEX.get(action.src, -1)
        return src in (RESERVE[seat], SECOND_RESERVE[seat]) and len(game.p[src]) > 1
    return False


STEP_COST = 1e-4  # a move's cost in win chance: of two equal lines, the shorter
# A move from house to house costs more: it changes little that the value function sees, and a
# line of them would otherwise be as good as the last position's figure, turn after turn.
SHUFFLE_COST = 1e-3

# A reference to what a choice leads to: a position searched further (its piles), the model's
# figures to average (indexes of rows, for the mover), or a value known outright.
_Node = tuple[str, object]


class _Tree:
    """The rest of one turn for the seat to move, shared by every candidate of a decision."""

    def __init__(
        self, worlds: list[GameState], unseen: frozenset[Card], seat: int, budget: int
    ) -> None:
        self.worlds = worlds
        self.unseen = unseen  # the cards the view does not show: a face-down place holds one
        self.seat = seat
        self.budget = budget
        self.respect = worlds[0].ruleset.enforcement != "lenient"
        self.win_needs_waste = worlds[0].ruleset.win == "reserve_hand_waste"
        self.rows: list[list[float]] = []
        self.flips: list[bool] = []  # the row's figure is for the opponent
        self.children: dict[Piles, list[_Node]] = {}
        self.values: dict[Piles, float] = {}

    # ---------------------------------------------------------------------------- building

    def leaf(self, game: GameState) -> _Node:
        """The model's figure for the mover at `game`: a finished game, or a table where the
        opponent's turn begins (the only positions the value function judges)."""
        if game.over:
            return ("const", outcome(game, self.seat))
        self.rows.append(features(game))
        self.flips.append(game.to_move != self.seat)
        return ("rows", (len(self.rows) - 1,))

    def end_now(self, node: GameState) -> _Node:
        """Where the search stops inside the turn: judged as if the turn ended there (the hand
        card, if one is up, discarded), the opponent to move."""
        seat = self.seat
        p = node.p
        if p[SHOWN[seat]]:
            p = apply_step(p, SHOWN[seat], WASTE[seat])
        return self.leaf(node._evolved(p=p, to_move=1 - seat, seen=frozenset()))

    def won(self, p: Piles) -> bool:
        seat = self.seat
        if p[RESERVE[seat]] or p[SHOWN[seat]] or p[SECOND_RESERVE[seat]] or hand_cards(p, seat):
            return False
        return not (p[WASTE[seat]] and self.win_needs_waste)

    def expand(self, node: GameState) -> _Node:
        """Search on from `node` (the mover to move, mid-turn): a reference to its value."""
        key = node.p
        if key in self.children:
            return ("node", key)
        if self.budget <= 0:
            return self.end_now(node)
        self.budget -= 1
        refs: list[_Node] = []
        self.children[key] = refs
        seat, p = self.seat, node.p
        steps = legal_steps(node, seat)
        turn_ok = discard_ok = True
        if self.respect:
            level = priority(node, seat)
            if level.required is not None:
                steps = [s for s in steps if s in level.required]
                turn_ok = discard_ok = False
            else:
                steps = [s for s in steps if s not in level.bad_steps]
                turn_ok, discard_ok = level.turn_rule is None, level.end_rule is None
        for src, dst in steps:
            refs.append(self.step(node, src, dst))
        if p[SHOWN[seat]]:
            if discard_ok:
                refs.append(self.discard(node))
        elif hand_cards(p, seat) or p[WASTE[seat]]:
            if turn_ok:
                refs.append(self.turn(node))
        else:
            refs.append(self.leaf(node._evolved(to_move=1 - seat, seen=frozenset())))
        if not refs:  # nothing to do in a line the search invented: the turn ends here
            refs.append(self.end_now(node))
        return ("node", key)

    def step(self, node: GameState, src: int, dst: int) -> _Node:
        p = apply_step(node.p, src, dst)
        if self.won(p):
            return ("const", 1.0)
        seat = self.seat
        if (
            (src == RESERVE[seat] or src == SECOND_RESERVE[seat])
            and p[src]
            and p[src][-1] in self.unseen
        ):
            # A face-down card comes up: each determinization has its own there (a mover's
            # reserve only shrinks during his turn, so the place is the same in all of them),
            # and the search goes on in each.
            slot = len(p[src]) - 1
            return (
                "avg",
                tuple(
                    self.expand(node._evolved(p=_put(p, src, w.p[src][slot]), seen=frozenset()))
                    for w in self.worlds
                ),
            )
        child = node._evolved(p=p, seen=frozenset())
        shuffle = FIRST_HOUSE <= src < FIRST_FOUNDATION and FIRST_HOUSE <= dst < FIRST_FOUNDATION
        return ("shuffle" if shuffle else "step", self.expand(child))

    def discard(self, node: GameState) -> _Node:
        seat = self.seat
        p = apply_step(node.p, SHOWN[seat], WASTE[seat])
        if self.won(p):
            return ("const", 1.0)
        return self.leaf(node._evolved(p=p, to_move=1 - seat, seen=frozenset()))

    def turn(self, node: GameState) -> _Node:
        seat = self.seat
        p = node.p
        hand = next((h for h in HANDS[3][seat] if p[h]), None)
        if hand is None:  # the waste becomes the hand, face down: its top card is known
            piles = list(p)
            piles[HANDS[3][seat][0]] = tuple(reversed(p[WASTE[seat]]))
            piles[WASTE[seat]] = ()
            q = apply_step(tuple(piles), HANDS[3][seat][0], SHOWN[seat])
            return self.expand(node._evolved(p=q, seen=frozenset()))
        slot = len(p[hand]) - 1
        if p[hand][-1] not in self.unseen:  # a hand made of the waste: its cards are known
            return self.expand(node._evolved(p=apply_step(p, hand, SHOWN[seat]), seen=frozenset()))
        games = []
        for w in self.worlds:
            q = apply_step(_put(p, hand, w.p[hand][slot]), hand, SHOWN[seat])
            games.append(self.expand(node._evolved(p=q, seen=frozenset())))
        return ("avg", tuple(games))

    # ---------------------------------------------------------------------------- judging

    def judge(self) -> None:
        """Run the model over every stopping point at once (before any `value`)."""
        chances = model()(self.rows)
        self.figures = [1.0 - c if f else c for c, f in zip(chances, self.flips, strict=True)]

    def value(self, ref: _Node) -> float:
        kind, data = ref
        if kind == "step":  # one move more: of two equal lines the shorter (no idle shuffles)
            assert isinstance(data, tuple)
            return self.value(data) - STEP_COST
        if kind == "shuffle":
            assert isinstance(data, tuple)
            return self.value(data) - SHUFFLE_COST
        if kind == "const":
            assert isinstance(data, float)
            return data
        if kind == "rows":
            assert isinstance(data, tuple)
            return sum(self.figures[i] for i in data) / len(data)
        if kind == "avg":  # a card comes up: the mean over the determinizations
            assert isinstance(data, tuple)
            return sum(self.value(r) for r in data) / len(data)
        assert isinstance(data, tuple)
        known = self.values.get(data)
        if known is not None:
            return known
        self.values[data] = 0.0  # in progress: a line that comes back here is worthless
        best = max(self.value(r) for r in self.children[data])
        self.values[data] = best
        return best


def _put(p: Piles, pile: int, card: Card) -> Piles:
    """`p` with the top card of `pile` replaced by `card` (a determinization's face-down card)."""
    piles = list(p)
    piles[pile] = (*p[pile][:-1], card)
    return tuple(piles)


class Evaluation:
    """One position as one seat knows it, with the determinizations every action is tried on."""

    def __init__(
        self, match: MatchState, seat: int, depth: str, seed: int, omniscient: bool
    ) -> None:
        self.depth = settings(depth)
        self.name = depth
        self.match = match
        self.seat = seat
        game = match.game
        if game is None:
            raise ValueError("no game is in play: there is nothing to evaluate")
        self.game = game
        self.unseen: frozenset[Card] = frozenset()  # all-knowing: no card is unknown
        if omniscient:
            tables = [strip(game)]
        else:
            sampler = Sampler(match, seat)
            self.unseen = frozenset(sampler.unseen)
            rng = random.Random(f"crapette-evaluator/{seed}/{match.version}")
            tables = [sampler.draw(rng) for _ in range(self.depth.samples)]
        self.worlds = [as_match(match, table) for table in tables]
        self.tables = tables
        self.at = max(game.move_started_at_ms, 0)
        # The figures are anchored on the position (`value.Model.anchored`), except when all-
        # knowing (the anchor was fitted on figures that know what the seat knows).
        self.anchor = not omniscient

    def candidates(self) -> list[Action]:
        """The distinct play actions of the seat to move: moves, turn, discard, pass (a turn
        naming one of three hands is left out: the hands are face down and alike)."""
        seat = self.seat
        if self.game.over or self.game.to_move != seat:
            return []
        return [
            a
            for a in legal_actions(self.match, seat)
            if isinstance(a, Move | Discard | Pass) or (isinstance(a, Turn) and a.hand is None)
        ]

    def score(self, actions: list[Action]) -> list[float]:
        """The mover's chance after each of `actions` (all of the same mover)."""
        if not actions:
            return []
        mover = actions[0].seat
        tree = _Tree(self.tables[: self.depth.inner], self.unseen, mover, 0)
        share = self.depth.budget // len(actions)
        refs: list[list[_Node]] = []
        for action in actions:
            # Each candidate may search `share` more positions, and those its elders left.
            tree.budget += share
            worlds = self.worlds if reveals(self.game, action) else self.worlds[:1]
            refs.append([self._after_in(tree, world, action, mover) for world in worlds])
        tree.judge()
        judge = model()
        figures = [sum(tree.value(r) for r in rs) / len(rs) for rs in refs]
        calibrated = [judge.calibrated(min(1.0, max(0.0, f)), self.name) for f in figures]
        return judge.anchored(calibrated, self.name, context(self.game) if self.anchor else None)

    def _after_in(self, tree: _Tree, world: MatchState, action: Action, mover: int) -> _Node:
        _, state = play(world, Act(action, self.at))
        game = state.game
        assert game is not None
        window = game.window
        if (
            not game.over
            and window is not None
            and window.fault is not None
            and window.offender == mover
            and game.ruleset.enforcement == "call"
        ):
            # A fault in call mode: the opponent is taken to call it (its remedy is played).
            with suppress(RulesError):  # a faulty action can always be called
                _, state = play(state, Act(Call(1 - mover), self.at))
            game = state.game
            assert game is not None
            return tree.leaf(game)
        if game.over or game.to_move != mover:
            return tree.leaf(game)
        # The turn goes on: search the rest of it (a move costs a step, as in the search).
        if isinstance(action, Move):
            src, dst = INDEX.get(action.src, -1), INDEX.get(action.dst, -1)
            houses = FIRST_HOUSE <= src < FIRST_FOUNDATION and FIRST_HOUSE <= dst < FIRST_FOUNDATION
            kind = "shuffle" if houses else "step"
            return (kind, tree.expand(strip(game)._evolved(seen=frozenset())))
        return tree.expand(strip(game)._evolved(seen=frozenset()))
