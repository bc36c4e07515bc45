"""The value function: the chance that the seat to move wins the game, from `features`.

A small multilayer perceptron (one hidden layer of tanh units, a logistic output) whose weights
were fitted on self-play (`domain.evaluator.fit`, reproduced by ``crapette bench eval --fit``) and
are kept in `domain/evaluator/weights.py`. With no hidden layer it is a logistic regression.

The search's figures (the best of several lines, each judged by the model) are not calibrated
as they come: choosing the best of noisy figures favours the ones that err high. Each depth
therefore has a *calibration* map, ``p -> sigmoid(a * logit(p) + b)``, fitted on the search's
figures for positions of the training games (Platt scaling; `fit.fit_calibration`). It is
monotone, so it never changes which action is best.

A decision's figures are then *anchored* (`Model.anchored`): the position's own figure (the
chance after the best candidate, `win_chance`) is a logistic regression on the logit of the
best candidate's calibrated figure and on the position's public context (`features.context`),
fitted on decisions of other games (`fit.fit_anchor`); every candidate keeps its calibrated
distance in logit from the best. So the figures of one decision shift together (their order
and differences are the search's), and the position's figure is as well calibrated as a model
of the whole position can make it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from domain.evaluator.features import CONTEXT_NAMES, NAMES, WIDTH


class Model:
    """A fitted value function; `__call__(rows)` gives one chance per feature row."""

    def __init__(self, weights: dict[str, Any]) -> None:
        if tuple(weights["features"]) != NAMES:
            raise ValueError("the weights were fitted on other features: fit them again")
        self.weights = weights
        self.mean = np.asarray(weights["mean"], dtype=float)
        self.scale = np.asarray(weights["scale"], dtype=float)
        self.layers = [
            (np.asarray(layer["w"], dtype=float), np.asarray(layer["b"], dtype=float))
            for layer in weights["layers"]
        ]
        self.maps: dict[str, tuple[float, float]] = {
            depth: (float(a), float(b)) for depth, (a, b) in weights.get("calibration", {}).items()
        }
        self.anchors: dict[str, tuple[float, float, list[float]]] = {}
        for depth, anchor in weights.get("anchor", {}).items():
            if tuple(anchor["context"]) != CONTEXT_NAMES:
                raise ValueError("the anchor was fitted on another context: fit it again")
            coefs = [float(c) for c in anchor["w"]]
            self.anchors[depth] = (float(anchor["logit"]), float(anchor["b"]), coefs)

    def calibrated(self, chance: float, depth: str) -> float:
        """The search's figure at `depth` mapped to a calibrated chance (certainties kept)."""
        known = self.maps.get(depth)
        if known is None or chance <= 0.0 or chance >= 1.0:
            return chance
        a, b = known
        return _sigmoid(a * _logit(chance) + b)

    def anchored(
        self, figures: list[float], depth: str, context: Sequence[float] | None
    ) -> list[float]:
        """A decision's calibrated figures at `depth` (`calibrated`), shifted together in logit
        so that the best of them becomes the anchor's figure for the position (`context`, see
        the module's docstring). Certainties (0, 1) are kept, and so is a decision whose best
        figure is one (a won line: the position is won)."""
        known = self.anchors.get(depth)
        best = max(figures, default=0.0)
        if known is None or context is None or best <= 0.0 or best >= 1.0:
            return figures
        c, b, w = known
        top = _logit(best)
        z = c * top + b + sum(wi * xi for wi, xi in zip(w, context, strict=True))
        shift = z - top
        return [f if f <= 0.0 or f >= 1.0 else _sigmoid(_logit(f) + shift) for f in figures]

    def logits(self, rows: Sequence[Sequence[float]]) -> np.ndarray[Any, Any]:
        x = (np.asarray(rows, dtype=float).reshape(-1, WIDTH) - self.mean) / self.scale
        for w, b in self.layers[:-1]:
            x = np.tanh(x @ w + b)
        w, b = self.layers[-1]
        out: np.ndarray[Any, Any] = (x @ w + b).reshape(-1)
        return out

    def __call__(self, rows: Sequence[Sequence[float]]) -> list[float]:
        if not rows:
            return []
        z = np.clip(self.logits(rows), -30.0, 30.0)
        chances: list[float] = (1.0 / (1.0 + np.exp(-z))).tolist()
        return chances


def _logit(p: float) -> float:
    return math.log(p / (1.0 - p))


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


_MODEL: Model | None = None


def use(weights: dict[str, Any]) -> None:
    """Judge with these weights from now on in this process (a fit that was just made)."""
    global _MODEL
    _MODEL = Model(weights)


def model() -> Model:
    """The fitted model shipped in the repository (loaded once)."""
    global _MODEL
    if _MODEL is None:
        from domain.evaluator.weights import WEIGHTS

        _MODEL = Model(WEIGHTS)
    return _MODEL
