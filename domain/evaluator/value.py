"""The value function: the chance that the seat to move wins the game, from `features`.

A small multilayer perceptron (one hidden layer of tanh units, a logistic output) whose weights
were fitted on self-play (`domain.evaluator.fit`, reproduced by ``crapette bench eval --fit``) and
are kept in `domain/evaluator/weights.py`. With no hidden layer it is a logistic regression.

The search's figures (the best of several lines, each judged by the model) are not calibrated
as they come: choosing the best of noisy figures favours the ones that err high. Each depth
therefore has a *calibration* map, ``p -> sigmoid(a * logit(p) + b)``, fitted on the search's
figures for positions of the training games (Platt scaling; `fit.fit_calibration`). It is
monotone, so it never changes which action is best.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from domain.evaluator.features import NAMES, WIDTH


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

    def calibrated(self, chance: float, depth: str) -> float:
        """The search's figure at `depth` mapped to a calibrated chance (certainties kept)."""
        known = self.maps.get(depth)
        if known is None or chance <= 0.0 or chance >= 1.0:
            return chance
        a, b = known
        z = a * math.log(chance / (1.0 - chance)) + b
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

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
