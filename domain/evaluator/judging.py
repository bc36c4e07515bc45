"""One engine plays and judges (issue 37): the strongest bot's search ranks a decision's
candidates, a map fitted on game outcomes turns its scores into win chances, and playouts by
that bot check a label before it is shown.

```python
watch = Watch()                        # the strongest bot in each seat, watching
watch.see(state)                       # after every event batch of the game, in order
watch.rank(state, seat)                # [Candidate(action, score, chance)], the bot's choice first
watch.chance(state, seat)              # the seat's chance in the position
watch.check(state, seat, [best, played], deals=16, seed=0)   # playouts: a value per deal
```

- **The ranking is the bot's own.** `rank` asks `ExpertBot.rank` (the `expert` bot's search of
  the rest of the turn, on the view's mirror with the hands it remembers, `HandMemory`) for the
  play actions it would consider, so the first candidate is the action that bot plays in the
  same view, by construction (tests/unit/domain/test_judging.py checks it over whole games). A
  priority fault in `call` mode, which the bot never plays, is scored as called: its remedy
  played and the turn lost (`fault_score`).
- **Scores become chances** by `scale.chance`: the position's figure is the calibrated anchor
  on its public context, the other candidates are moved from it by a logistic slope on the
  search's score, both fitted on game outcomes (`crapette bench judge --fit`).
- **Only the view is read** (`domain.view(state, seat)`), plus what the seat remembers of it: a
  hand turned over from a waste it watched. Face-down cards are never read: the playouts fill
  them with fresh shuffles of the unseen cards (`sampling.Sampler`), keeping the remembered hands
  where they lie.
- **Playouts** (`check`): from each of `deals` shuffles of what the mover could not see (the same
  shuffles for every action checked), the action is played and the game goes on between copies
  of the watching bots (the strongest bot in both seats, with their memories) until the start of
  the mover's next turn (`HORIZON_TURNS` turn ends: his own and the opponent's reply), or the
  end of the game; the position there is worth the mover's chance by the same map (his best
  candidate's), a finished game 1, 0 or 0.5. docs/evaluator.md says why this horizon.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass

from domain.actions import Action, Call, Discard, Move, Pass, Turn
from domain.bots.base import PlayAction
from domain.bots.expert import ExpertBot
from domain.bots.mirror import as_match as mirror_match
from domain.bots.mirror import fault_in, mirror_game, ruleset_of
from domain.bots.sharp import LOSS, WIN, evaluate
from domain.commands import Act
from domain.engine import decide_and_fold
from domain.errors import DomainError
from domain.evaluator import scale
from domain.evaluator.sampling import Sampler, as_match
from domain.moves import apply_step
from domain.piles import INDEX
from domain.state import GameState, MatchState
from domain.views import View, view

STRONGEST = "expert"  # the bot that plays best (docs/bots.md): the judge
# Turn ends a playout goes through before the position is valued: the mover's own turn and the
# opponent's reply (docs/evaluator.md § Playouts).
HORIZON_TURNS = 2
# A playout that has not reached its horizon after this many actions is valued where it stands.
MAX_PLAYOUT_ACTIONS = 400


@dataclass(frozen=True, slots=True)
class Candidate:
    """A play action, the search's score of it (the bot's scale, for the seat to move) and the
    mover's chance after it (`scale.chance`)."""

    action: Action
    score: float
    chance: float


def plays_of(seen: View) -> list[PlayAction]:
    """The play actions of a view's legal list the judge considers: moves, a turn (not naming
    one of three hands: they are face down and alike), a discard, a pass."""
    plays: list[PlayAction] = []
    for action in seen.legal:
        if isinstance(action, Move | Discard | Pass) or (
            isinstance(action, Turn) and action.hand is None
        ):
            plays.append(action)
    return plays


def same(a: Action, b: Action) -> bool:
    """Two play actions alike for the judge: a move whatever card it names, a turn whatever
    hand."""
    if isinstance(a, Move) and isinstance(b, Move):
        return (a.seat, a.src, a.dst) == (b.seat, b.src, b.dst)
    if isinstance(a, Turn) and isinstance(b, Turn):
        return a.seat == b.seat
    return a == b


def fault_score(table: GameState, action: Action, seat: int) -> float:
    """The score of a priority fault in `call` mode: taken to be called, its remedy played and
    the turn lost (the position then valued as a turn's end, `sharp.evaluate`)."""
    at = max(table.move_started_at_ms, 0)
    try:
        _, after = decide_and_fold(mirror_match(table), Act(action, at))
        with suppress(DomainError):
            _, after = decide_and_fold(after, Act(Call(1 - seat), at))
    except DomainError:
        return evaluate(table, table.p, seat, turn_over=True)
    game = after.game
    assert game is not None
    if game.over:
        result = game.result
        if result is None or result.winner is None:
            return 0.0
        return WIN if result.winner == seat else LOSS
    return evaluate(game, game.p, seat, turn_over=game.to_move != seat)


class Watch:
    """The strongest bot in each seat, shown every position of one match in order (`see`), so
    that it remembers what that seat could remember."""

    def __init__(self, bots: tuple[ExpertBot, ExpertBot] | None = None) -> None:
        self.bots = bots or (ExpertBot(seed="judge/0"), ExpertBot(seed="judge/1"))

    def see(self, state: MatchState) -> None:
        """Both seats watch `state` (call after every event batch, in stream order)."""
        if state.game is None:
            return
        for seat in (0, 1):
            self.bots[seat].remember(view(state, seat))

    def fork(self) -> Watch:
        """A watch that remembers what this one does, to ask without changing it."""
        return Watch((self.bots[0].fork(), self.bots[1].fork()))

    def known(self, seat: int) -> tuple[bool, bool]:
        """Which seats' hands `seat` remembers card by card now."""
        return self.bots[seat].remembered()

    def rank(self, state: MatchState, seat: int) -> list[Candidate]:
        """The candidates of `seat` (to move) with their scores and chances: the action the
        strongest bot plays in this view first, then the others best first. Empty when `seat`
        is not to move or has no play action."""
        game = state.game
        if game is None or game.over or game.to_move != seat:
            return []
        seen = view(state, seat)
        plays = plays_of(seen)
        if not plays:
            return []
        bot = self.bots[seat]
        bot.remember(seen)  # the table it searches is the one it saw last: this one
        mirrored = mirror_game(seen)
        faulty: list[PlayAction] = []
        if ruleset_of(seen).enforcement == "call":
            faulty = [a for a in plays if fault_in(mirrored, a) is not None]
        proper = [a for a in plays if a not in faulty] or plays
        ranked = bot.rank(seen, mirrored, proper, always=True)
        table, _ = bot.table(seen, mirrored)
        scored = [(a, _line(table, seat, a, s)) for a, s in ranked]
        extra = [(a, fault_score(table, a, seat)) for a in faulty if a not in proper]
        scored += sorted(extra, key=lambda item: -item[1])
        position = scale.position_logit(mirrored._evolved(turn_number=seen.turn_number))
        chosen = scored[0][1]
        if chosen >= WIN / 2:  # a won line: the others are measured from the best one not won
            chosen = max((s for _, s in scored if s < WIN / 2), default=0.0)
        return [Candidate(a, s, scale.chance(s, chosen, position)) for a, s in scored]

    def played(self, state: MatchState, action: Action) -> None:
        """What the mover really played at `state` (the bot counts its house shuffles)."""
        game = state.game
        if game is None or not isinstance(action, Move):
            return
        seat = action.seat
        seen = view(state, seat)
        self.bots[seat].played(seen, mirror_game(seen), action)

    def chance(self, state: MatchState, seat: int) -> float:
        """`seat`'s chance in the position: the chance after the best candidate of the seat to
        move (one minus it for the other seat); a finished game 1, 0 or 0.5."""
        game = state.game
        if game is None:
            raise ValueError("no game is in play: there is nothing to judge")
        if game.over:
            return _outcome(game, seat)
        mover = game.to_move
        ranked = self.rank(state, mover)
        if ranked:
            best = max(c.chance for c in ranked[:1])
        else:
            seen = view(state, mover)
            best = scale.chance(
                0.0,
                0.0,
                scale.position_logit(mirror_game(seen)._evolved(turn_number=seen.turn_number)),
            )
        return best if mover == seat else 1.0 - best

    def check(
        self, state: MatchState, seat: int, actions: Sequence[Action], deals: int, seed: int
    ) -> list[list[float]]:
        """For each of `actions` (of `seat`, to move), its value for `seat` on each of `deals`
        shuffles of the cards `seat` could not see (the same shuffles for every action), played
        on by the strongest bots to the horizon (the module's docstring)."""
        sampler = Sampler(state, seat, self.known(seat))
        values: list[list[float]] = [[] for _ in actions]
        for deal in range(deals):
            rng = random.Random(f"crapette-judge/{seed}/{state.version}/{deal}")
            world = as_match(state, sampler.draw(rng))
            for i, action in enumerate(actions):
                values[i].append(self._play_on(world, action, seat))
        return values

    def _play_on(self, world: MatchState, action: Action, seat: int) -> float:
        game = world.game
        assert game is not None
        bots = (self.bots[0].fork(), self.bots[1].fork())
        now = max(game.move_started_at_ms, 0) + 100
        try:
            _, state = decide_and_fold(world, Act(action, now))
        except DomainError:
            return 0.0  # not playable in this deal (cannot happen for a legal action)
        start = game.turn_number
        for _ in range(MAX_PLAYOUT_ACTIONS):
            game = state.game
            assert game is not None
            if game.over:
                return _outcome(game, seat)
            if game.turn_number - start >= HORIZON_TURNS:
                break
            mover = game.to_move
            chosen: Action | None = None
            for who in (1 - mover, mover):
                chosen = bots[who].choose(view(state, who))
                if chosen is not None:
                    break
            if chosen is None:
                break
            now += 100
            _, state = decide_and_fold(state, Act(chosen, now))
        return Watch(bots).chance(state, seat)


def _line(table: GameState, seat: int, action: PlayAction, score: float | None) -> float:
    """A candidate's score, where the search gave none worth reading: no search (one play) or a
    line that only came back to a position in progress (the search's LOSS marker, which is no
    lost game): then the table after its first step as it stands."""
    if score is not None and score > LOSS / 2:
        return score
    p = table.p
    if isinstance(action, Move):
        p = apply_step(p, INDEX[action.src], INDEX[action.dst])
    return evaluate(table, p, seat, turn_over=False)


def _outcome(game: GameState, seat: int) -> float:
    result = game.result
    if result is None or result.winner is None:
        return 0.5
    return 1.0 if result.winner == seat else 0.0
