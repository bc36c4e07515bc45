"""`steady`: a sound player who thinks one move at a time.

It plays by a fixed order of preferences, the way a careful club player does: compulsory
foundation moves (reserve first), then getting rid of its reserve, loading the opponent's reserve
and waste, placing the hand card, and house-to-house moves only when they free a house for the
reserve. Only then does it turn the next card, discard, or pass.
"""

from __future__ import annotations

from typing import Any, ClassVar

from domain.actions import Discard, Move, Pass, Turn
from domain.bots.base import Bot, PlayAction
from domain.moves import houses_of
from domain.piles import FOUNDATIONS, INDEX, RESERVE, SECOND_RESERVE, SHOWN, WASTE
from domain.state import GameState

_FOUNDATIONS = frozenset(FOUNDATIONS)


def move_rank(game: GameState, move: Move) -> int | None:
    """Lower is better; None: a move steady does not want (an idle shuffle)."""
    seat = move.seat
    src, dst = INDEX[move.src], INDEX[move.dst]
    p = game.p
    houses = set(houses_of(game))
    shown = SHOWN[seat]
    reserves = (RESERVE[seat], SECOND_RESERVE[seat])  # either reserve top counts alike (§10)
    loads = (RESERVE[1 - seat], SECOND_RESERVE[1 - seat], WASTE[1 - seat])
    if dst in _FOUNDATIONS:
        return 0 if src in reserves else 1
    if src in reserves:
        if dst in loads:
            return 2
        return 3 if p[dst] else 4
    if dst in loads:
        return 5 if src == shown else 6
    if src == shown and dst in houses:
        return 7 if p[dst] else 9
    if src in houses and dst in houses:
        # Worth it only when it empties a house that the reserve can then fill.
        if len(p[src]) == 1 and p[dst] and (p[reserves[0]] or p[reserves[1]]):
            return 8
        return None
    if src == WASTE[seat] and dst in houses:
        return 7 if p[dst] else None
    return None


class SteadyBot(Bot):
    name: ClassVar[str] = "steady"
    DEFAULTS: ClassVar[dict[str, Any]] = {
        "miss_call_rate": 0.2,
        "fault_rate": 0.03,
        "call_delay_ms": 1600,
    }

    def pick(self, view: Any, game: GameState, plays: list[PlayAction]) -> PlayAction:
        best: list[PlayAction] = []
        best_rank = 99
        for action in plays:
            rank = move_rank(game, action) if isinstance(action, Move) else _END[type(action)]
            if rank is None or rank > best_rank:
                continue
            if rank < best_rank:
                best, best_rank = [], rank
            best.append(action)
        if not best:  # only idle shuffles left (cannot happen while turn/discard/pass exist)
            return self.rng.choice(plays)
        return best[0] if len(best) == 1 else self.rng.choice(best)


_END: dict[type, int] = {Turn: 20, Discard: 21, Pass: 22}
