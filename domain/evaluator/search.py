"""The look-ahead: every candidate action of the seat to move, tried on one determinization of
its view, the rest of the turn searched, and the positions where the search stops judged by the
value function.

After a candidate action the search goes on through the mover's own turn like the `sharp` bot's
(a depth-first search over the moves the building rules and priorities allow, with a
transposition table, at most `budget` positions), and stops a line where something new would
be seen or the turn ends:

- a face-down reserve card comes up, or a hand card is turned: a *chance* point, where the
  search goes on with each kind of card that could be there (`kinds_of`: the unseen cards
  grouped by what the table lets them do), worth the mean weighed by the kinds' shares. It is
  the expectation over the card, not a sample, so no figure depends on the seed;
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
from domain.engine import decide_and_fold, legal_actions
from domain.errors import RulesError, quote
from domain.evaluator.features import context, features
from domain.evaluator.sampling import Sampler, as_match, strip
from domain.evaluator.value import model
from domain.moves import apply_step, foundation_index, house_index, waste_turned_over
from domain.piles import (
    FIRST_FOUNDATION,
    FIRST_HOUSE,
    HAND_SET,
    HANDS,
    INDEX,
    RESERVE,
    SECOND_RESERVE,
    SHOWN,
    WASTE,
)
from domain.priority import legal_steps, priority
from domain.state import GameState, MatchState, Piles, hand_cards

_RESERVES = frozenset(RESERVE + SECOND_RESERVE)

DEPTHS: tuple[str, ...] = ("quick", "normal", "deep")


@dataclass(frozen=True, slots=True)
class Depth:
    budget: int  # positions the search of the rest of the turn may expand, per decision


SETTINGS: dict[str, Depth] = {
    "quick": Depth(budget=0),
    "normal": Depth(budget=40),
    "deep": Depth(budget=200),
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

    def __init__(self, world: GameState, unseen: frozenset[Card], seat: int, budget: int) -> None:
        self.unseen = unseen  # the cards the view does not show: a face-down place holds one
        self.unseen_list = sorted(unseen)
        self.seat = seat
        self.budget = budget
        self.respect = world.ruleset.enforcement != "lenient"
        self.win_needs_waste = world.ruleset.win == "reserve_hand_waste"
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

    def unseen_at(self, p: Piles) -> list[Card]:
        """The cards unseen at the start of the decision that are still face down on table `p`
        (one may have come up earlier on the line)."""
        up = face_up(p)
        return [card for card in self.unseen_list if card not in up]

    def kinds(self, game: GameState, before: Piles) -> list[tuple[Card, float]]:
        """The kinds of card that could come up on table `game` (`kinds_of`, over the cards
        still face down on `before`). Past the search's budget, where each of them would only be
        judged as the turn stands, the likeliest kind alone stands for them all: a bounded
        search's edge is an estimate anyway, and judging every kind there was most of the
        evaluator's time."""
        kinds = kinds_of(game, self.unseen_at(before), self.seat)
        if self.budget > 0 or len(kinds) < 2:
            return kinds
        card, _ = max(kinds, key=lambda kind: kind[1])  # the first of the likeliest, if tied
        return [(card, 1.0)]

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
            # A face-down card comes up: each kind of card that could be there, weighed by its
            # share of the cards unseen on this line, and the search goes on with each.
            after = node._evolved(p=p, seen=frozenset())
            return (
                "avg",
                tuple(
                    (w, self.expand(node._evolved(p=_put(p, src, card), seen=frozenset())))
                    for card, w in self.kinds(after, node.p)
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
            q = apply_step(waste_turned_over(p, seat), HANDS[3][seat][0], SHOWN[seat])
            return self.expand(node._evolved(p=q, seen=frozenset()))
        if p[hand][-1] not in self.unseen:  # a hand made of the waste: its cards are known
            return self.expand(node._evolved(p=apply_step(p, hand, SHOWN[seat]), seen=frozenset()))
        games = []
        for card, w in self.kinds(node, p):
            q = apply_step(_put(p, hand, card), hand, SHOWN[seat])
            games.append((w, self.expand(node._evolved(p=q, seen=frozenset()))))
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
        if kind == "avg":  # a card comes up: the mean over the kinds of card, weighed
            assert isinstance(data, tuple)
            return float(sum(float(w) * self.value(r) for w, r in data))
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


def _swap(p: Piles, place: tuple[int, int], card: Card) -> Piles:
    """`p` with `card` moved to `place` (pile, index) and the card there to where `card` was."""
    pile, index = place
    piles = [list(cards) for cards in p]
    for i, cards in enumerate(piles):
        if card in cards:
            k = cards.index(card)
            piles[i][k], piles[pile][index] = piles[pile][index], card
            break
    return tuple(tuple(cards) for cards in piles)


def face_up(p: Piles) -> set[Card]:
    """The cards of table `p` that lie face up: everything but the hands and the cards under a
    reserve's top."""
    up: set[Card] = set()
    for i, pile in enumerate(p):
        if not pile or i in HAND_SET:
            continue
        if i in _RESERVES:
            up.add(pile[-1])
        else:
            up.update(pile)
    return up


def kinds_of(game: GameState, cards: list[Card], seat: int) -> list[tuple[Card, float]]:
    """The cards that could come up for `seat` on table `game` (one of `cards`, each as likely),
    grouped by what that table lets them do or suffer at once: the foundations and houses that
    take them, the opponent's reserve and waste tops they could be loaded onto, the house tops
    that could be loaded onto them, and (kings-only rules) whether they may fill an empty
    house. One card stands for each group, with the group's share of `cards`: the mean over the
    groups replaces a sample of determinizations, so the chance of a line that turns a card up
    is the same whatever the seed (docs/evaluator.md)."""
    founds = game.derived.foundations
    if founds is None:
        founds = foundation_index(game)
    houses = game.derived.houses
    if houses is None:
        houses = house_index(game)
    wanted = houses[0]
    p = game.p
    other = 1 - seat
    king_only = game.ruleset.empty_house == "king_only"
    targets = [(i, p[i][-1]) for i in (RESERVE[other], SECOND_RESERVE[other], WASTE[other]) if p[i]]
    tops = [(h, p[h][-1]) for h in houses[2]]
    groups: dict[tuple[object, ...], list[Card]] = {}
    for card in sorted(cards):
        key = (
            card.fkey in founds,
            tuple(wanted.get(card.hkey, ())),
            tuple(i for i, t in targets if t.suit == card.suit and abs(t.rank - card.rank) == 1),
            tuple(h for h, t in tops if t.suit == card.suit and abs(t.rank - card.rank) == 1),
            king_only and card.rank == 13,
        )
        groups.setdefault(key, []).append(card)
    total = len(cards)
    return [(members[0], len(members) / total) for members in groups.values()]


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
            self.table = strip(game)
        else:
            # One determinization: the value function never reads a face-down card and the
            # search branches on every card that comes up (`kinds_of`), so which unseen card
            # lies where else never changes a figure.
            sampler = Sampler(match, seat)
            self.unseen = frozenset(sampler.unseen)
            self.table = sampler.draw(random.Random(f"crapette-evaluator/{seed}/{match.version}"))
        self.world = as_match(match, self.table)
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
        tree = _Tree(self.table, self.unseen, mover, 0)
        share = self.depth.budget // len(actions)
        refs: list[list[tuple[float, _Node]]] = []
        for action in actions:
            # Each candidate may search `share` more positions, and those its elders left.
            tree.budget += share
            if self.unseen and reveals(self.game, action):
                worlds = self._revealed(action)
            else:
                worlds = [(self.world, 1.0)]
            refs.append([(w, self._after_in(tree, world, action, mover)) for world, w in worlds])
        tree.judge()
        judge = model()
        figures = [sum(w * tree.value(r) for w, r in rs) for rs in refs]
        calibrated = [judge.calibrated(min(1.0, max(0.0, f)), self.name) for f in figures]
        return judge.anchored(calibrated, self.name, context(self.game) if self.anchor else None)

    def _remedied(self, tree: _Tree, world: MatchState, game: GameState, mover: int) -> _Node:
        """The position a called fault leaves: its remedy may have played the mover's reserve
        top and turned up the card below, which is then each kind of card in turn."""
        before = world.game
        assert before is not None
        hidden = tree.unseen_at(before.p)
        for pile in (RESERVE[mover], SECOND_RESERVE[mover]):
            cards = game.p[pile]
            if cards and cards[-1] in hidden:
                kinds = kinds_of(game, hidden, mover)
                return (
                    "avg",
                    tuple(
                        (w, tree.leaf(game._evolved(p=_put(game.p, pile, card))))
                        for card, w in kinds
                    ),
                )
        return tree.leaf(game)

    def _revealed(self, action: Action) -> list[tuple[MatchState, float]]:
        """The determinization with each kind of card the action could turn up in the place it
        comes from (`kinds_of`, judged on the table after the action), with its share."""
        p = self.table.p
        seat = action.seat
        if isinstance(action, Turn):
            src = next(h for h in HANDS[3][seat] if p[h])
            place = (src, len(p[src]) - 1)
            after = apply_step(p, src, SHOWN[seat])
        else:
            assert isinstance(action, Move)
            src = INDEX[action.src]
            place = (src, len(p[src]) - 2)
            after = apply_step(p, src, INDEX[action.dst])
        kinds = kinds_of(self.table._evolved(p=after), sorted(self.unseen), seat)
        return [
            (as_match(self.match, self.table._evolved(p=_swap(p, place, card))), w)
            for card, w in kinds
        ]

    def _after_in(self, tree: _Tree, world: MatchState, action: Action, mover: int) -> _Node:
        _, state = decide_and_fold(world, Act(action, self.at))
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
                _, state = decide_and_fold(state, Act(Call(1 - mover), self.at))
            game = state.game
            assert game is not None
            return self._remedied(tree, world, game, mover)
        if game.over or game.to_move != mover:
            return tree.leaf(game)
        # The turn goes on: search the rest of it (a move costs a step, as in the search).
        if isinstance(action, Move):
            src, dst = INDEX.get(action.src, -1), INDEX.get(action.dst, -1)
            houses = FIRST_HOUSE <= src < FIRST_FOUNDATION and FIRST_HOUSE <= dst < FIRST_FOUNDATION
            kind = "shuffle" if houses else "step"
            return (kind, tree.expand(strip(game)._evolved(seen=frozenset())))
        return tree.expand(strip(game)._evolved(seen=frozenset()))
