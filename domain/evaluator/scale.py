"""The map from the judge's search scores to win chances (issue 37, docs/evaluator.md § The
scale).

- The position's chance for the seat to move (the chance after the action the strongest bot
  chooses) is the evaluator's anchor at `normal`, a logistic regression of the outcome on the
  position's public context (`features.context`, weights in `weights.py`), through a Platt map
  ``p * logit + q`` (`recalibration`) that ``crapette bench judge --fit`` keeps only if it lowers
  the held-out games' calibration error (today it did not: p, q = 1, 0);
- every other candidate is that chance moved in logit by ``a * (score - chosen's score)``, where
  the scores are the `expert` bot's search figures (`sharp.evaluate`'s scale, for the mover) and
  `a` is the slope of a logistic regression of the game's outcome on the chosen action's score
  over the decisions of self-play games (`fit.fit_scale`).

The coefficients are in `domain/evaluator/scale_weights.py`, written by
``crapette bench judge --fit``. A line the search sees won is 1 (lost: 0). Monotone in the
score, so it never reorders the candidates."""

from __future__ import annotations

import math

from domain.bots.sharp import WIN
from domain.evaluator.features import context
from domain.evaluator.value import model
from domain.state import GameState

_MAP: tuple[float, float] | None = None
_POSITION: tuple[float, float] | None = None
ANCHOR_DEPTH = "normal"  # the anchor whose position figure the judge shows


def use(a: float, b: float, position: tuple[float, float] = (1.0, 0.0)) -> None:
    """Map with these coefficients from now on in this process (a fit just made)."""
    global _MAP, _POSITION
    _MAP = (a, b)
    _POSITION = position


def coefficients() -> tuple[float, float]:
    """(a, b): the slope and intercept of the outcome's logistic regression on the score."""
    global _MAP
    if _MAP is None:
        from domain.evaluator.scale_weights import SCALE

        _MAP = (float(SCALE["a"]), float(SCALE["b"]))
    return _MAP


def recalibration() -> tuple[float, float]:
    """(p, q) of the position figure's Platt map, ``p * anchor logit + q``, fitted on the
    outcomes of the judge's fit games (1, 0: the anchor as it is)."""
    global _POSITION
    if _POSITION is None:
        from domain.evaluator.scale_weights import SCALE

        _POSITION = (float(SCALE.get("p", 1.0)), float(SCALE.get("q", 0.0)))
    return _POSITION


def anchor_logit(game: GameState) -> float:
    """The evaluator's anchor at `normal` on the position's context, before the judge's
    recalibration (`game` is a table built from a view: its face-up cards and counts are all
    that is read)."""
    c, b, w = model().anchors[ANCHOR_DEPTH]
    del c  # the search figure's weight is 0 at `normal`: the context alone
    return b + sum(wi * xi for wi, xi in zip(w, context(game), strict=True))


def position_logit(game: GameState) -> float:
    """The logit of the position's chance for its seat to move: the anchor, recalibrated on the
    outcomes of games between the judge's fit pairings (`recalibration`)."""
    p, q = recalibration()
    return p * anchor_logit(game) + q


def chance(score: float, chosen: float, position: float) -> float:
    """The mover's chance after a candidate of search score `score`, in a decision whose chosen
    action scores `chosen` and whose position's logit is `position`."""
    if score >= WIN / 2:
        return 1.0
    if score <= -WIN / 2:
        return 0.0
    a, _ = coefficients()
    return _sigmoid(position + a * (score - chosen))


def alone(score: float) -> float:
    """The outcome's regression on the score alone (`a * score + b`): what the fit measures."""
    if score >= WIN / 2:
        return 1.0
    if score <= -WIN / 2:
        return 0.0
    a, b = coefficients()
    return _sigmoid(a * score + b)


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
