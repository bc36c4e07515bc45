"""What every bot does alike: check its input is a view, decide on "Crapette!" calls, slip in
the occasional fault, and give the server human-like timing hints. Strengths differ only in
`pick`, the choice among the play actions of their own turn."""

from __future__ import annotations

import random
from typing import Any, ClassVar

from domain.actions import AcceptDraw, Action, Call, Discard, Move, Pass, Turn
from domain.bots.errors import NotAViewError
from domain.bots.mirror import (
    Sighting,
    called_action,
    fault_in,
    mirror_game,
    position_before,
    ruleset_of,
)
from domain.bots.options import BotOptions
from domain.engine import compulsory_moves
from domain.piles import ALL_PILES, RESERVE, SECOND_RESERVE, SHOWN
from domain.state import GameState
from domain.views import View

PlayAction = Move | Turn | Discard | Pass


class Bot:
    """A player made of code. `choose(view)` returns its next action, or None when it has
    nothing to do now (not its turn and no call to make)."""

    name: ClassVar[str] = "bot"
    DEFAULTS: ClassVar[dict[str, Any]] = {}
    # In `call` mode, leave out priority-breaking actions (save for the `fault_rate` slips).
    AVOIDS_FAULTS: ClassVar[bool] = True
    # On a right call, name the compulsory move that helps the offender least
    # (docs/spec/rules.md §7).
    NAMES_CALLS: ClassVar[bool] = False
    # With three hands (docs/spec/rules.md §10), also turn from a hand named at will. The hands
    # are face down and dealt alike, so no hand is a better choice than another: bots that play
    # well leave the choice to the default order H, I, J.
    NAMES_HANDS: ClassVar[bool] = False

    def __init__(self, **options: Any) -> None:
        self.options = BotOptions.build(self.DEFAULTS, options)
        self.rng = self.options.rng()
        # Timing hints draw from their own stream so that asking for them never changes a move.
        self._timing = random.Random(f"{self.options.seed}/timing")
        self._memory = Sighting()
        self._judged: dict[tuple[int | None, int], Call | None] = {}

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} {self.options}>"

    # -------------------------------------------------------------------------- the interface

    def choose(self, view: View) -> Action | None:
        if not isinstance(view, View):
            raise NotAViewError(
                f"a bot plays from a seat's view (domain.view(state, seat)), not a "
                f"{type(view).__name__}: anything else could show it face-down cards"
            )
        try:
            return self._choose(view)
        finally:
            self._memory.update(view)

    def delay_hint_ms(self, action: Action) -> int:
        """How long a person would take before this action; the server waits at least this."""
        options = self.options
        base = options.call_delay_ms if isinstance(action, Call) else options.move_delay_ms
        return int(base * self._timing.uniform(0.7, 1.3))

    # ----------------------------------------------------------------------------- internals

    def _choose(self, view: View) -> Action | None:
        seat = view.viewer
        if seat not in (0, 1) or view.over or view.match_over or not view.legal:
            return None
        call = self._call(view)
        if call is not None:
            return call
        if any(isinstance(a, AcceptDraw) for a in view.legal) and self._accepts_draw(view):
            return AcceptDraw(seat)
        plays = [a for a in view.legal if isinstance(a, Move | Turn | Discard | Pass)]
        if not self.NAMES_HANDS:  # the unnamed turn is listed whenever a named one is
            plays = [a for a in plays if not (isinstance(a, Turn) and a.hand is not None)]
        if not plays or view.to_move != seat:
            return None
        game = mirror_game(view)
        if self.AVOIDS_FAULTS and ruleset_of(view).enforcement == "call":
            fault = self._slip(view, game, plays)
            if fault is not None:
                return fault
            proper = [a for a in plays if fault_in(game, a) is None]
            plays = proper or plays
        return self.pick(view, game, plays)

    def pick(self, view: View, game: GameState, plays: list[PlayAction]) -> PlayAction:
        """Pick one of `plays` (legal, priority-respecting where possible). Strengths override."""
        return self.rng.choice(plays)

    def _call(self, view: View) -> Call | None:
        """Call Crapette on the opponent's last action when it was a fault (seen from the view),
        unless this bot misses it; decided once per window."""
        if not any(isinstance(a, Call) for a in view.legal):
            return None
        key = (view.game_index, view.version)
        if key in self._judged:
            return self._judged[key]
        verdict: Call | None = None
        action = called_action(view)
        if action is not None:
            before = position_before(view, action, self._memory)
            faulty = before is not None and fault_in(before, action) is not None
            if faulty and self.rng.random() >= self.options.miss_call_rate:
                caller = view.viewer if view.viewer is not None else 0
                named = _least_helpful(before, action) if self.NAMES_CALLS and before else None
                verdict = Call(caller, named)
        self._judged = {key: verdict}  # older windows are closed for good
        return verdict

    def _slip(self, view: View, game: GameState, plays: list[PlayAction]) -> PlayAction | None:
        """Now and then, a careless fault (a priority-breaking action), as people make."""
        if self.options.fault_rate <= 0:
            return None
        faults = [a for a in plays if fault_in(game, a) is not None]
        if faults and self.rng.random() < self.options.fault_rate:
            return self.rng.choice(faults)
        return None

    def _accepts_draw(self, view: View) -> bool:
        """Agree to a stalemate offer when it would not cost points: my penalty is not higher."""
        game = mirror_game(view)
        me = view.viewer if view.viewer is not None else 0
        return game.penalty(me) <= game.penalty(1 - me)


def _least_helpful(before: GameState, action: Action) -> Move | None:
    """Of the compulsory moves a right call may play for the offender, the one that takes the
    fewest cards off his hands: a house card before his hand card, his hand card before his
    reserve card. None when there is no choice to make."""
    steps = compulsory_moves(before, action)
    if len(steps) < 2:
        return None
    seat = action.seat
    cost = {RESERVE[seat]: 2, SECOND_RESERVE[seat]: 2, SHOWN[seat]: 1}
    src, dst = min(steps, key=lambda step: cost.get(step[0], 0))
    return Move(seat, ALL_PILES[src], ALL_PILES[dst])
