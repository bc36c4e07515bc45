"""`expert`: `sharp`'s look-ahead through its own turn, plus what a player remembers of the
hands.

A hand is face down, but not always unknown: when a hand runs out, the waste is turned over to
become the new hand, the card at the bottom of the waste first (docs/spec/rules.md §4). Every
card of a waste was face up, so from then on a player who watched knows his hand card by card,
and his opponent's as well. `sharp` forgets it: its search stops at every hand card turned.
The expert remembers (`HandMemory`, from the views it was shown, never from a face-down card)
and searches on through the hand cards it knows, so that it plans a whole turn of known cards
(`_KnownSearch`): where each card goes and what room to leave for the next. The same holds for
turning over a waste: the order of the new hand is on the table.

The ends of its lines are scored by `sharp.evaluate`. (A look at the opponent's reply at each
end of turn, his own search from his seat through his known hand cards, was tried and dropped:
it won no more games and cost six times the time: docs/benchmarks.md.)

It never reads a face-down card: its picture of the table is the view's mirror
(`domain.bots.mirror`) with the remembered hands filled in, and its search stops where a card
nobody has seen would come up. Within a turn it never moves a card between houses back to
a layout already seen, and plays no more than `SHUFFLES_PER_TURN` house-to-house moves (every
game ends). It calls faults as `sharp` does.
"""

from __future__ import annotations

import copy
import random
from typing import Any, ClassVar

from domain.actions import Action, Move, Turn
from domain.bots.base import Bot, PlayAction
from domain.bots.mirror import _cards, mirror_game, ruleset_of
from domain.bots.sharp import (
    STEP_COST,
    Choice,
    _action,
    _best_allowed,
    _Search,
)
from domain.cards import Card
from domain.moves import houses_of, waste_turned_over
from domain.piles import (
    HAND,
    INDEX,
    SECOND_HAND,
    SHOWN,
    THIRD_HAND,
    WASTE,
)
from domain.state import GameState, Piles, hand_cards
from domain.views import View


class HandMemory:
    """The hands a watching player knows card by card: for each seat, the waste last seen while
    his hand was empty (it becomes the hand, bottom card on top, when he turns next). A hand is
    known while it holds no more cards than that waste had: cards only ever leave a hand from
    the top, one turn at a time, so what is left is the same cards in the same order. Views
    that were missed cannot mislead it for long: a hand larger than the waste remembered, or
    holding a card that is face up elsewhere, is forgotten."""

    def __init__(self) -> None:
        self._wastes: dict[int, tuple[int | None, list[Card | None]]] = {}

    def piles(self, view: View) -> tuple[dict[str, list[Card | None]], tuple[bool, bool]]:
        """The view's piles with every remembered hand filled in (bottom to top, as views list
        piles), and for each seat whether its hand is known."""
        piles = {name: _cards(cards) for name, cards in view.piles.items()}
        known = [False, False]
        if view.game_index is None or view.ruleset.get("hands_per_player", 1) != 1:
            return piles, (False, False)  # three hands (§10): not remembered
        visible = {card for cards in piles.values() for card in cards if card is not None}
        for seat in (0, 1):
            hand, waste = piles.get(f"H{seat}", []), piles.get(f"W{seat}", [])
            if not hand:
                if waste:
                    self._wastes[seat] = (view.game_index, list(waste))
                else:
                    self._wastes.pop(seat, None)
                continue
            remembered = self._wastes.get(seat)
            if remembered is None or remembered[0] != view.game_index:
                continue
            cards = list(reversed(remembered[1]))[: len(hand)]
            if len(hand) > len(remembered[1]) or any(
                card is None or card in visible for card in cards
            ):
                del self._wastes[seat]  # a waste turned over unseen: the hand is unknown
                continue
            piles[f"H{seat}"] = cards
            known[seat] = True
        return piles, (known[0], known[1])


def turned(p: Piles, seat: int) -> Piles | None:
    """The table after `seat` turns his next hand card, for a table whose hand is known (or
    empty, the waste then turned over first); None when no card can be turned."""
    hand, waste, shown = HAND[seat], WASTE[seat], SHOWN[seat]
    if p[shown] or p[SECOND_HAND[seat]] or p[THIRD_HAND[seat]]:
        return None
    if not p[hand]:
        if not p[waste]:
            return None
        p = waste_turned_over(p, seat)
    piles = list(p)
    cards = piles[hand]
    piles[shown], piles[hand] = (cards[-1],), cards[:-1]
    return tuple(piles)


class _KnownSearch(_Search):
    """`sharp`'s search of the rest of the turn that goes on through a hand card turned when
    the seat's hand is known (`hand_known`), or when the hand is empty and the waste is turned
    over (its order is on the table). Otherwise a turn stops the line, as in `sharp`."""

    def __init__(
        self, root: GameState, seat: int, budget: int, respect: bool, hand_known: bool
    ) -> None:
        super().__init__(root, seat, budget, respect)
        # An empty hand at the root is known once the waste is turned over into it.
        self.turns_known = hand_known or hand_cards(root.p, seat) == 0

    def ender_value(self, node: GameState, ender: str) -> float:
        if ender == "turn" and self.turns_known:
            p = turned(node.p, self.seat)
            if p is not None:
                return self.going_on(node, p) - STEP_COST
        return super().ender_value(node, ender)


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
    SHUFFLES_PER_TURN: ClassVar[int] = 60

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._turn: tuple[int | None, int] | None = None
        self._seen: set[tuple[tuple[Any, ...], ...]] = set()
        self._shuffles = 0
        self._plan: dict[Piles, Choice] = {}
        self._searched: dict[Piles, _Search] = {}  # the search that planned each table
        self._hands = HandMemory()
        self._known: tuple[dict[str, list[Card | None]], tuple[bool, bool]] = ({}, (False, False))

    def choose(self, view: View) -> Action | None:
        # Every view shown is watched, the opponent's turns too: that is how hands are known.
        self.remember(view)
        return super().choose(view)

    def remember(self, view: View) -> None:
        """Remember what `view` shows of the hands (`HandMemory`); `choose` does it for every
        view, the judge (server/readmodels/judge.py) for every position of the game it reads."""
        if isinstance(view, View):
            self._known = self._hands.piles(view)

    def table(self, view: View, game: GameState) -> tuple[GameState, bool]:
        """The table the search plays on (the view's mirror, with the remembered hands in
        place) and whether the seat's own hand is known on it."""
        piles, known = self._known
        if any(known):
            game = mirror_game(view, piles)
        seat = view.viewer if view.viewer is not None else game.to_move
        return game, known[seat]

    def search(self, game: GameState, seat: int, respect: bool, hand_known: bool) -> _KnownSearch:
        return _KnownSearch(game, seat, self.options.budget, respect, hand_known)

    def pick(self, view: View, game: GameState, plays: list[PlayAction]) -> PlayAction:
        action = self.rank(view, game, plays)[0][0]
        self.played(view, game, action)
        return action

    def played(self, view: View, game: GameState, action: PlayAction) -> None:
        """Count a house-to-house move of this turn (`SHUFFLES_PER_TURN`)."""
        table, _ = self.table(view, game)
        if _shuffle(table, action) is not None:
            self._shuffles += 1

    def fork(self) -> ExpertBot:
        """A twin that remembers what this bot remembers (the hands, the last view, this
        turn's layouts and plan), to ask about positions nobody decided at or to play on in a
        playout without changing this bot."""
        twin = copy.copy(self)
        twin._hands = copy.deepcopy(self._hands)
        twin._known = (dict(self._known[0]), self._known[1])
        twin._memory = copy.deepcopy(self._memory)
        twin._judged = dict(self._judged)
        twin.rng = random.Random()
        twin.rng.setstate(self.rng.getstate())
        twin._seen = set(self._seen)
        twin._plan = dict(self._plan)
        twin._searched = dict(self._searched)
        return twin

    def remembered(self) -> tuple[bool, bool]:
        """Which seats' hands this bot knows card by card (from the last view watched)."""
        return self._known[1]

    def rank(
        self, view: View, game: GameState, plays: list[PlayAction], *, always: bool = False
    ) -> list[tuple[PlayAction, float | None]]:
        """Each of `plays` with the search's score of it (`sharp.evaluate`'s scale, for the
        seat to move; None when there was nothing to choose and no search was made): the
        action this bot plays first, then the others best first (ties in `plays`' order).

        The choice is the bot's: the plan of this turn's last search where the table is one
        it planned for (the scores then those that search weighed there), else a new search
        (with one play, none unless `always`: a search made only to score the play is not kept
        in the plan, so asking never changes what the bot plays). The judge ranks with this
        very method (domain/evaluator/judging.py), so its best action is this bot's."""
        table, hand_known = self.table(view, game)
        kept = self._no_shuffling_back(view, table, plays)
        seat = view.viewer if view.viewer is not None else table.to_move
        choice = self._plan.get(table.p)
        chosen = _action(seat, choice) if choice is not None else None
        search = self._searched.get(table.p)
        if chosen is None or chosen not in kept or search is None:
            chosen = None
            if len(kept) == 1 and not always:
                return [(kept[0], None)]
            respect = ruleset_of(view).enforcement != "lenient"
            search = self.search(table, seat, respect, hand_known)
            search.weighed = {}
            search.value(table._evolved(seen=frozenset()))
            if len(kept) == 1:
                chosen = kept[0]
            else:
                self._plan.update(search.best)
                self._searched.update(dict.fromkeys(search.best, search))
                chosen = _best_allowed(search, table, seat, kept)
        weighed = (search.weighed or {}).get(table.p, {})
        scores = [(action, score_of(search, weighed, table, action)) for action in plays]
        rest = sorted((item for item in scores if item[0] != chosen), key=lambda item: -item[1])
        return [(chosen, dict(scores)[chosen]), *rest]

    def _no_shuffling_back(
        self, view: View, game: GameState, plays: list[PlayAction]
    ) -> list[PlayAction]:
        """Leave out the house-to-house moves that lay the houses out as they already were in
        this turn, and all of them past `SHUFFLES_PER_TURN`: a turn of moves back and forth
        would never end."""
        turn = (view.game_index, view.turn_number)
        if turn != self._turn:
            self._turn, self._seen, self._shuffles = turn, set(), 0
            self._plan, self._searched = {}, {}
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


def score_of(
    search: _Search, weighed: dict[Choice, float], game: GameState, action: PlayAction
) -> float:
    """The score of a play action at `game`: as `search` weighed it when it chose there
    (`weighed`), else the value of its first step as that search judges it now."""
    if isinstance(action, Move):
        step = (INDEX[action.src], INDEX[action.dst])
        known = weighed.get(step)
        return known if known is not None else search.step_value(game, step)
    ender = "turn" if isinstance(action, Turn) else action.notation()
    known = weighed.get(ender)
    return known if known is not None else search.ender_value(game, ender)


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
