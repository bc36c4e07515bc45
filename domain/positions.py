"""A compact text layout of a position, like chess FEN (grammar in docs/positions.md).

    R0=5S,7H X0=2C T0=KS/1,QH T4=9D/1 F0=AS,2S H1=3D,4D R1=8C to=0

Tokens are separated by white space. ``PILE=cards`` lists a pile bottom to top, cards separated by
commas; a pile left out is empty. A card's owner defaults to the seat of its pile for R, Q, H,
I, J, X and W (``R1=8C`` is ``8C/1``) and to seat 0 for houses and foundations; write ``/0`` or
``/1`` to say otherwise. ``to=N`` says whose turn it is (default 0).
Positions need not hold all 104 cards, but no card (rank, suit and owner) may appear twice.
"""

from __future__ import annotations

from domain.cards import Card
from domain.errors import NotationError, quote
from domain.events import MatchStarted
from domain.gamefold import fresh_game
from domain.piles import (
    ALL_PILES,
    HOUSE_SET,
    INDEX,
    SECOND_HAND,
    SECOND_RESERVE,
    SHOWN,
    THIRD_HAND,
    house_indices,
)
from domain.ruleset import Ruleset
from domain.state import GameState, MatchState, Piles


def _default_owner(name: str) -> int:
    return int(name[1]) if name[0] in "RQHIJXW" else 0


def position_from_text(
    text: str, ruleset: Ruleset | None = None, match_id: str = "position"
) -> MatchState:
    """A match whose current game is the position written in `text` (game 0, no seed)."""
    ruleset = ruleset or Ruleset()
    piles: list[tuple[Card, ...]] = [() for _ in ALL_PILES]
    to_move = 0
    seen: set[Card] = set()
    houses = set(house_indices(ruleset.houses_per_player))
    for token in text.split():
        key, sep, value = token.partition("=")
        if not sep:
            raise NotationError(f"{quote(token)}: write PILE=cards or to=SEAT")
        key = key.upper()
        if key == "TO":
            if value not in ("0", "1"):
                raise NotationError(f"to= is 0 or 1, not {quote(value)}")
            to_move = int(value)
            continue
        if key not in INDEX:
            raise NotationError(f"{quote(key)} is not a pile")
        i = INDEX[key]
        if i in HOUSE_SET and i not in houses:
            raise NotationError(f"{key} does not exist with two houses per player")
        if i in SECOND_RESERVE and ruleset.reserves_per_player != 2:
            raise NotationError(f"{key} exists only with two reserves per player")
        if i in SECOND_HAND + THIRD_HAND and ruleset.hands_per_player != 3:
            raise NotationError(f"{key} exists only with three hands per player")
        cards = tuple(Card.parse(c, _default_owner(key)) for c in value.split(",") if c)
        if i in SHOWN and len(cards) > 1:
            raise NotationError(f"{key} holds at most one card")
        for card in cards:
            if card in seen:
                raise NotationError(f"{card} appears twice")
            seen.add(card)
        piles[i] = cards
    p: Piles = tuple(piles)
    start = MatchStarted(match_id, ruleset, ("seat 0", "seat 1"), 0)
    game = fresh_game(
        ruleset,
        p,
        to_move,
        game_index=0,
        seed=None,
        packs=((), ()),
        commitment=None,
        first_player_reason="set up from a position",
        at_ms=0,
    )
    return MatchState(
        ruleset=ruleset,
        players=start.players,
        match_id=match_id,
        games_played=0,
        totals=(0, 0),
        wins=(0, 0),
        game_scores=(),
        game=game,
        finished=False,
        winner=None,
        session=None,
        version=2,
        started_at_ms=0,
        previous_first=to_move,
    )


def position_to_text(state: MatchState | GameState) -> str:
    """The text layout of the current position (the inverse of `position_from_text`)."""
    game = state.game if isinstance(state, MatchState) else state
    if game is None:
        raise NotationError("no game: nothing to write")
    tokens = []
    for i, name in enumerate(ALL_PILES):
        cards = game.p[i]
        if not cards:
            continue
        owner = _default_owner(name)
        written = [c.code if c.owner == owner else str(c) for c in cards]
        tokens.append(f"{name}={','.join(written)}")
    tokens.append(f"to={game.to_move}")
    return " ".join(tokens)
