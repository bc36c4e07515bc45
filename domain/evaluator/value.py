"""The value function: the chance that the seat to move wins the game, from `features`.

A small multilayer perceptron (one hidden layer of tanh units, a logistic output) whose weights
were fitted on self-play (`domain.evaluator.fit`, reproduced by ``crapette bench eval --fit``) and
are kept in `domain/evaluator/weights.py`. With no hidden layer it is a logistic regression.
"""

from __future__ import annotations

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


def model() -> Model:
    """The fitted model shipped in the repository (loaded once)."""
    global _MODEL
    if _MODEL is None:
        from domain.evaluator.weights import WEIGHTS

        _MODEL = Model(WEIGHTS)
    return _MODEL
