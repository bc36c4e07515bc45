"""The judge of issue 37 and what it keeps of issue 26's evaluator (docs/evaluator.md).

The judge is `domain.evaluator.judging.Watch` (the strongest bot ranks, `scale` turns its scores
into win chances, playouts check a label); `sampling` shuffles what a seat could not see, and
`value` / `features` / `weights.py` give the position's calibrated figure.

This module is issue 26's value-function evaluator, which judges nothing any more; it stays
for ``crapette bench eval``, which refits `weights.py` (whose anchor the judge's position figure
is) and measures its calibration:

```python
from domain.evaluator import DEPTHS, win_chance, rank_actions, chance_after

win_chance(match, seat)                   # 0.0 .. 1.0, from domain.view(match, seat) only
rank_actions(match, seat, depth="deep")   # [(action, chance after it), ...] best first
chance_after(match, action)               # the mover's chance after one action
```

Face-down cards are never read (unless `omniscient=True`): it rebuilds a full table from the
seat's view by shuffling the unseen cards (`sampling`), plays each candidate action, with each
kind of card wherever one comes up (`search`), and judges where it leads with a value function
fitted on self-play (`value`, `features`, weights in `weights.py`, fitted by `fit`).
"""

from __future__ import annotations

from domain.actions import Action, Move
from domain.engine import check
from domain.errors import quote
from domain.evaluator.search import DEPTHS, Evaluation, outcome, settings, static_value
from domain.state import MatchState


def _running(match: MatchState, seat: int) -> None:
    if seat not in (0, 1):
        raise ValueError(f"seat is 0 or 1, not {quote(seat)}")
    if match.game is None:
        raise ValueError("no game is in play: there is nothing to evaluate")


def win_chance(
    match: MatchState,
    seat: int,
    *,
    depth: str = "normal",
    seed: int = 0,
    omniscient: bool = False,
) -> float:
    """The chance in [0, 1] that `seat` wins the game in play (a stalemate counts half), as
    `seat` could know it. A finished game gives 1.0 or 0.0 (0.5 for a stalemate). When the seat
    to move has play actions, it is the chance after the best of them (`rank_actions`)."""
    settings(depth)
    _running(match, seat)
    game = match.game
    assert game is not None
    if game.over:
        return outcome(game, seat)
    mover = game.to_move
    ranked = rank_actions(match, mover, depth=depth, seed=seed, omniscient=omniscient)
    if not ranked:
        return static_value(game, seat)
    best = ranked[0][1]
    return best if mover == seat else 1.0 - best


def rank_actions(
    match: MatchState,
    seat: int,
    *,
    depth: str = "normal",
    seed: int = 0,
    omniscient: bool = False,
) -> list[tuple[Action, float]]:
    """Each distinct legal play action of `seat` (the seat to move) with `seat`'s chance after
    it, best first (ties in the engine's order). All actions are tried on the same
    determinizations, so their figures compare fairly. Empty when `seat` is not to move."""
    settings(depth)
    _running(match, seat)
    evaluation = Evaluation(match, seat, depth, seed, omniscient)
    actions = evaluation.candidates()
    scored = list(zip(actions, evaluation.score(actions), strict=True))
    order = sorted(range(len(scored)), key=lambda i: (-scored[i][1], i))
    return [scored[i] for i in order]


def chance_after(
    match: MatchState, action: Action, *, depth: str = "normal", seed: int = 0
) -> float:
    """The mover's chance after `action`, as `rank_actions` figures it (same determinizations
    for the same seed). An action the rules refuse raises `domain.RulesError`."""
    settings(depth)
    _running(match, action.seat)
    check(match, action)
    # Scored among all the candidates, as rank_actions does (the search's budget is shared out
    # among them, and its positions are shared), so that the figures are the same.
    evaluation = Evaluation(match, action.seat, depth, seed, False)
    actions = evaluation.candidates()
    if isinstance(action, Move) and action.card is not None:  # the card named adds nothing
        action = Move(action.seat, action.src, action.dst)
    if action not in actions:
        actions.append(action)
    return evaluation.score(actions)[actions.index(action)]


def score_actions(
    match: MatchState, seat: int, actions: list[Action], *, depth: str = "normal", seed: int = 0
) -> list[float]:
    """The chance of `seat` (to move) after each of `actions`, assumed legal (the `expert` bot
    scores the actions of its view's legal list on its view's mirror this way)."""
    settings(depth)
    _running(match, seat)
    return Evaluation(match, seat, depth, seed, False).score(actions)


__all__ = ["DEPTHS", "chance_after", "rank_actions", "score_actions", "win_chance"]
