"""Determinization: full positions consistent with what one seat sees.

A seat's view (`domain.view(match, seat)`) shows every face-up card and, for the face-down places
(the hands, a reserve below its top), only how many cards lie there. A *determinization* fills
those places with the cards the view does not show, shuffled by a seeded random stream, so the
engine can play on from it. Both seats see the same cards (face-down cards are hidden from their
owner too), so a determinization of either seat's view is a possible true table.

The rest of the game's bookkeeping (whose turn, the turn's repetition guard, null-turn streaks,
the houses emptied this turn) is public: it is taken from the match as it is, while the deal
(`packs`, `seed`) and the call window's saved position, which hold hidden cards, are dropped.
Nothing here reads a face-down card of `match` unless the caller asks for all-knowing play,
or says that a hand is public (`public_hands`): once a seat's hand has run out, every later hand
of his is a waste turned over (docs/spec/rules.md §4), whose cards all lay face up in a known
order, so a player who watched the game knows it card by card. A `Sampler` told so keeps such a
hand as it lies instead of shuffling it with the unseen cards.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence

from domain.cards import Card, fresh_pack
from domain.piles import ALL_PILES, HANDS, WASTE
from domain.state import GameState, MatchState
from domain.views import View, view

ALL_CARDS: tuple[Card, ...] = tuple(sorted(fresh_pack(0) + fresh_pack(1)))
_PARSED: dict[str, Card] = {str(card): card for card in ALL_CARDS}
_NO_PACKS: tuple[tuple[Card, ...], tuple[Card, ...]] = ((), ())


class Sampler:
    """The determinizations of one seat's view of a position: `draw(rng)` makes one."""

    __slots__ = ("game", "known", "unseen", "holes")

    def __init__(
        self, match: MatchState, seat: int, public: tuple[bool, bool] = (False, False)
    ) -> None:
        game = match.game
        if game is None:
            raise ValueError("no game is in play: there is nothing to evaluate")
        seen = view(match, seat)
        if any(public):
            # A public hand is shown as it lies (the caller vouches that it was turned over
            # from a waste that everybody saw: `public_hands`).
            piles = dict(seen.piles)
            for owner in (0, 1):
                if public[owner]:
                    for i in HANDS[3][owner]:
                        name = ALL_PILES[i]
                        if name in piles:
                            piles[name] = [card.text for card in game.p[i]]
            seen = dataclasses.replace(seen, piles=piles)
        self.game = game
        self.known, self.unseen, self.holes = _layout(seen)

    def draw(self, rng: random.Random) -> GameState:
        """One full table consistent with the view (a fresh shuffle of the unseen cards)."""
        unseen = list(self.unseen)
        rng.shuffle(unseen)
        return self.fill(unseen)

    def fill(self, cards: list[Card]) -> GameState:
        """The table with the face-down places filled by `cards`, in the view's order."""
        piles = [list(pile) for pile in self.known]
        it = iter(cards)
        for i, j in self.holes:
            piles[i][j] = next(it)
        full = tuple(tuple(card for card in pile if card is not None) for pile in piles)
        return strip(self.game, full)

    def canonical(self) -> GameState:
        """The table with the unseen cards in a fixed order (the bots' mirror does the same):
        for lines of play that never look at a face-down card."""
        return self.fill(list(self.unseen))


def public_hands(states: Sequence[MatchState]) -> list[tuple[bool, bool]]:
    """For each position of one game (in order), which seats' hands are public: those whose
    hands have run out at an earlier position with cards in the waste (every hand after that is
    a waste turned over, known card by card to whoever watched)."""
    out: list[tuple[bool, bool]] = []
    public = [False, False]
    game_index: int | None = None
    for state in states:
        game = state.game
        if game is None or game.game_index != game_index:
            public = [False, False]
            game_index = game.game_index if game is not None else None
        out.append((public[0], public[1]))
        if game is None:
            continue
        for seat in (0, 1):
            if game.p[WASTE[seat]] and not any(game.p[i] for i in HANDS[3][seat]):
                public[seat] = True
    return out


def _layout(
    seen: View,
) -> tuple[list[list[Card | None]], tuple[Card, ...], tuple[tuple[int, int], ...]]:
    known: list[list[Card | None]] = []
    holes: list[tuple[int, int]] = []
    visible: set[Card] = set()
    for i, name in enumerate(ALL_PILES):
        shown = seen.piles.get(name, [])
        pile: list[Card | None] = []
        for j, text in enumerate(shown):
            if text is None:
                holes.append((i, j))
                pile.append(None)
            else:
                card = _PARSED[text]
                visible.add(card)
                pile.append(card)
        known.append(pile)
    unseen = tuple(card for card in ALL_CARDS if card not in visible)
    # A position set up by hand may hold fewer than 104 cards: then some unseen cards are in no
    # place at all, and each determinization fills the places with a random choice of them.
    if len(unseen) < len(holes):
        raise ValueError(f"the view hides {len(holes)} places but only {len(unseen)} cards")
    return known, unseen, tuple(holes)


def strip(game: GameState, p: tuple[tuple[Card, ...], ...] | None = None) -> GameState:
    """`game` with the piles `p` (default: its own) and without what holds hidden cards: the
    deal and the call window's saved position (a window is closed by the mover's next action
    anyway, and the evaluator judges play actions only)."""
    return game._evolved(p=game.p if p is None else p, packs=_NO_PACKS, seed=None, window=None)


def as_match(match: MatchState, game: GameState) -> MatchState:
    return match.with_game(game, match.version)
