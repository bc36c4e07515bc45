"""The look-ahead: every candidate action of the seat to move, played on the same
determinizations of its view, and the position it leads to judged by the value function.

See docs/evaluator.md for what each depth does and what it costs.
"""

from __future__ import annotations

import random
from contextlib import suppress
from dataclasses import dataclass

from domain.actions import Action, Call, Discard, Move, Pass, Turn
from domain.commands import Act
from domain.engine import legal_actions, play
from domain.errors import RulesError, quote
from domain.evaluator.features import features
from domain.evaluator.sampling import Sampler, as_match, strip
from domain.evaluator.value import model
from domain.piles import INDEX, RESERVE, SECOND_RESERVE
from domain.state import GameState, MatchState, hand_cards

DEPTHS: tuple[str, ...] = ("quick", "normal", "deep")


@dataclass(frozen=True, slots=True)
class Depth:
    samples: int  # determinizations an action that uncovers a card is averaged over


SETTINGS: dict[str, Depth] = {
    "quick": Depth(samples=2),
    "normal": Depth(samples=8),
    "deep": Depth(samples=24),
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


class Evaluation:
    """One position as one seat knows it, with the determinizations every action is tried on."""

    def __init__(
        self, match: MatchState, seat: int, depth: str, seed: int, omniscient: bool
    ) -> None:
        self.depth = settings(depth)
        self.match = match
        self.seat = seat
        game = match.game
        if game is None:
            raise ValueError("no game is in play: there is nothing to evaluate")
        self.game = game
        if omniscient:
            self.worlds = [as_match(match, strip(game))]
        else:
            sampler = Sampler(match, seat)
            rng = random.Random(f"crapette-evaluator/{seed}/{match.version}")
            self.worlds = [as_match(match, sampler.draw(rng)) for _ in range(self.depth.samples)]
        self.at = max(game.move_started_at_ms, 0)

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

    def after(self, action: Action) -> float:
        """The mover's chance after `action`, averaged over the determinizations."""
        mover = action.seat
        worlds = self.worlds if reveals(self.game, action) else self.worlds[:1]
        total = 0.0
        for world in worlds:
            total += self._after_in(world, action, mover)
        return total / len(worlds)

    def _after_in(self, world: MatchState, action: Action, mover: int) -> float:
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
        return static_value(game, mover)
