"""A position rebuilt from a seat's view, so that bots can ask the engine's own rule helpers
(building rules, priorities, faults) instead of re-implementing the rules.

The view shows face-down cards only as counts. The mirror fills those places with the cards the
viewer cannot see, in a fixed order that does not depend on where they really are, so nothing a bot
computes from a mirror can depend on hidden cards. Bots never look at a face-down place of a
mirror: a search stops as soon as a reserve card would be uncovered or a hand card turned.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from domain.actions import Action, Discard, Move, Pass, Turn, parse_action
from domain.cards import Card, fresh_pack
from domain.engine import fault_of
from domain.errors import DomainError
from domain.piles import ALL_PILES, INDEX, RESERVE, SECOND_RESERVE
from domain.positions import position_from_text
from domain.ruleset import Ruleset
from domain.state import GameState, MatchState
from domain.views import View

ALL_CARDS: tuple[Card, ...] = tuple(sorted(fresh_pack(0) + fresh_pack(1)))


@lru_cache(maxsize=64)
def _ruleset(items: tuple[tuple[str, Any], ...]) -> Ruleset:
    return Ruleset.from_json(dict(items))


def ruleset_of(view: View) -> Ruleset:
    return _ruleset(tuple(sorted(view.ruleset.items())))


@dataclass
class Sighting:
    """What a bot remembers of the last view it was shown (the only memory bots keep)."""

    game_index: int | None = None
    version: int = -1
    piles: dict[str, list[str | None]] = field(default_factory=dict)
    to_move: int | None = None
    emptied: tuple[str, ...] = ()

    def update(self, view: View) -> None:
        self.game_index, self.version, self.piles = view.game_index, view.version, view.piles
        self.to_move, self.emptied = view.to_move, view.emptied


_PARSED: dict[str, Card] = {str(card): card for card in ALL_CARDS}


def _cards(shown: list[str | None]) -> list[Card | None]:
    return [_PARSED[text] if text is not None else None for text in shown]


@lru_cache(maxsize=64)
def _empty_table(ruleset: Ruleset) -> GameState:
    """An empty table under these rules, made by the engine's own position reader."""
    game = position_from_text("to=0", ruleset).game
    assert game is not None
    return game


def mirror_game(
    view: View,
    piles: dict[str, list[Card | None]] | None = None,
    emptied: tuple[str, ...] | None = None,
) -> GameState:
    """The viewer's picture of the game as a `GameState` (hidden places filled canonically).

    It has no call window and no repetition history (the view's `legal` list is what knows this
    turn's repetitions); the houses emptied this turn are the view's (or `emptied`)."""
    known = piles if piles is not None else {n: _cards(c) for n, c in view.piles.items()}
    seen = {card for cards in known.values() for card in cards if card is not None}
    unseen = iter([card for card in ALL_CARDS if card not in seen])
    p = tuple(
        tuple(card if card is not None else next(unseen) for card in known.get(name, ()))
        for name in ALL_PILES
    )
    to_move = view.to_move if view.to_move is not None else 0
    houses = frozenset(INDEX[name] for name in (view.emptied if emptied is None else emptied))
    return _empty_table(ruleset_of(view))._evolved(
        p=p, to_move=to_move, seen=frozenset(), emptied=houses
    )


def as_match(game: GameState) -> MatchState:
    """Wrap a mirrored game so that match-level engine queries (`fault_of`) accept it."""
    return _SHELL._replace(ruleset=game.ruleset, game=game)


_SHELL = position_from_text("to=0")


def fault_in(game: GameState, action: Action) -> str | None:
    """The priority rule `action` would break in `game` (None if none or not a play)."""
    try:
        return fault_of(as_match(game), action)
    except DomainError:
        return None


def called_action(view: View) -> Action | None:
    """The opponent's action that the open call window lets the viewer call, if any."""
    window = view.call_window
    offender = window.get("offender")
    if not window.get("open") or offender is None or offender == view.viewer:
        return None
    text = window.get("action")
    if not isinstance(text, str):
        return None
    try:
        return parse_action(text, offender)
    except DomainError:
        return None


def _loadable_under(card: Card, piles: dict[str, list[Card | None]]) -> Card | None:
    visible = {c for cards in piles.values() for c in cards if c is not None}
    for rank in (card.rank - 1, card.rank + 1):
        for owner in (0, 1):
            if 1 <= rank <= 13 and Card(rank, card.suit, owner) not in visible:
                return Card(rank, card.suit, owner)
    return None


def position_before(view: View, action: Action, memory: Sighting) -> GameState | None:
    """The table as it was just before the opponent's `action`, worked back from the view (and,
    for a waste turned over into a new hand, from the last view remembered). None when the
    view does not allow it; the bot then does not call."""
    piles = {name: _cards(cards) for name, cards in view.piles.items()}
    last = view.last_action or {}
    seat = action.seat
    if isinstance(action, Move):
        src, dst = piles.get(action.src), piles.get(action.dst)
        if not dst or dst[-1] is None or src is None:
            return None
        moved = dst.pop()
        src.append(moved)
        if action.dst in ("R0", "R1", "Q0", "Q1") and dst and dst[-1] is None:
            # Loaded onto a reserve: the top it covered is face down in the view now. Any card
            # it could have been loaded on will do: priorities never look at that pile.
            dst[-1] = _loadable_under(moved, piles)
    elif isinstance(action, Turn):
        # The hand it came from: the one named, else the one the view says (three hands, §10).
        hand_name = action.hand or last.get("hand") or f"H{seat}"
        shown, hand, waste = piles[f"X{seat}"], piles[hand_name], piles[f"W{seat}"]
        card: Card | None
        if last.get("do") == "discard" and last.get("auto") == "hand card lock":
            card = waste.pop() if waste else None  # turned, then locked out to the waste
        else:
            card = shown.pop() if shown else None
        if card is None:
            return None
        hands = [name for name in (f"H{seat}", f"I{seat}", f"J{seat}") if name in piles]
        recycled = (
            not waste
            and memory.game_index == view.game_index
            and memory.version < view.version
            and not any(memory.piles.get(name) for name in hands)
            and memory.piles.get(f"W{seat}")
        )
        if recycled:
            piles[f"W{seat}"] = _cards(memory.piles[f"W{seat}"])
            piles[f"H{seat}"] = []
        else:
            hand.append(None)  # face down again, as it was
    elif isinstance(action, Discard):
        waste = piles[f"W{seat}"]
        if not waste:
            return None
        piles[f"X{seat}"].append(waste.pop())
    elif not isinstance(action, Pass):
        return None
    # The houses the offender had emptied before his action: the view's while his turn goes on,
    # else those of the last view remembered, if it was of his turn.
    emptied: tuple[str, ...] = ()
    if view.to_move == seat:
        emptied = view.emptied
    elif memory.game_index == view.game_index and memory.to_move == seat:
        emptied = memory.emptied
    game = mirror_game(view, piles, emptied)
    return game if game.to_move == seat else game._evolved(to_move=seat)


def reserve_uncovers(game: GameState, src: int) -> bool:
    """Would taking the top of pile `src` turn up a face-down card?"""
    return (src in RESERVE or src in SECOND_RESERVE) and len(game.p[src]) > 1


__all__ = [
    "INDEX",
    "Sighting",
    "as_match",
    "called_action",
    "fault_in",
    "mirror_game",
    "position_before",
    "reserve_uncovers",
    "ruleset_of",
]
