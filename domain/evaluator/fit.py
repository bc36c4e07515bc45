"""Fitting the value function on self-play, and measuring it: pure computation (the command
that writes `weights.py` is ``crapette bench eval --fit``, in bench/evaluator_bench.py).

Games are played by bots of mixed strength (`PAIRINGS`), each a single classic game from a seed
derived from the run's seed. Every position where the player to move has a play action to choose
becomes one sample: the features of that position (`features.features`) and the outcome for the
seat to move (1 won, 0 lost, 0.5 stalemate). Positions of one game are strongly correlated, so
held-out data is always whole games played from other seeds.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

import domain
from domain.bots import make_bot
from domain.bots.arena import START_MS, STEP_MS, derive_seed
from domain.evaluator.features import NAMES, cards_left, features

# The bots the games are played between (seat 0, seat 1), drawn in turn.
PAIRINGS: tuple[tuple[str, str], ...] = (
    ("sharp", "sharp"),
    ("sharp", "steady"),
    ("steady", "sharp"),
    ("steady", "steady"),
    ("random", "steady"),
    ("sharp", "random"),
)
# The bots the value function is fitted on: the same mix. (Fitted on games between equal bots
# only, sharp and sharp or steady and steady, the expert it drives won 1 game of 13 against sharp
# instead of 3 of 18, and its figures were worse calibrated on the mix: measured for issue 26.)
FIT_PAIRINGS: tuple[tuple[str, str], ...] = PAIRINGS
MAX_ACTIONS = 5_000
T = TypeVar("T")


@dataclass
class Samples:
    rows: list[list[float]]
    outcomes: list[float]  # for the seat to move at that row
    games: list[int]  # the game each row comes from
    baseline: list[list[float]]  # the baseline's inputs: cards left in each seat's piles
    weights: list[float]  # 1 / the decisions of the row's turn: every turn weighs the same
    first: list[bool]  # the row is its turn's first decision (what the value function learns)

    _turns: set[tuple[int, int]] = field(default_factory=set)

    def arrays(self) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        return np.asarray(self.rows, dtype=float), np.asarray(self.outcomes, dtype=float)

    def add(self, index: int, states: list[domain.MatchState], winner: int | None) -> None:
        """The decisions of one game. Each is weighed by one over the decisions of its turn:
        sampled at every decision, the positions of long turns (the winner's, mostly) would
        teach the model that being the one to move is worth more than it is."""
        turns = [state.game.turn_number if state.game is not None else 0 for state in states]
        length: dict[int, int] = {}
        for turn in turns:
            length[turn] = length.get(turn, 0) + 1
        for state, turn in zip(states, turns, strict=True):
            game = state.game
            assert game is not None
            self.rows.append(features(game))
            self.baseline.append(cards_left(game))
            self.games.append(index)
            self.outcomes.append(outcome_for(winner, game.to_move))
            self.weights.append(1.0 / length[turn])
            self.first.append(not self.first_seen(index, turn))

    def first_seen(self, index: int, turn: int) -> bool:
        key = (index, turn)
        known = key in self._turns
        self._turns.add(key)
        return known


BASELINE_NAMES: tuple[str, ...] = ("reserve_me", "loose_me", "reserve_opp", "loose_opp")


def sampled(states: list[T], every: int, index: int) -> list[T]:
    """Every `every`-th of a game's decision positions, from an offset that moves with the
    game's `index` (``index % every``): the first decision of a game is a turn start, and a
    fixed offset of 0 would favour them. What the benchmark and the calibration maps use."""
    step = max(1, every)
    return states[index % step :: step]


def outcome_for(winner: int | None, seat: int) -> float:
    return 0.5 if winner is None else float(winner == seat)


def games(
    count: int,
    seed: str,
    ruleset: domain.Ruleset | None = None,
    pairings: tuple[tuple[str, str], ...] = PAIRINGS,
) -> Iterator[tuple[int, list[domain.MatchState], int | None]]:
    """(index, the positions where a play action was chosen, the winner) of `count` games, each
    between the next pair of bots of `pairings`, dealt from a seed derived from `seed`."""
    rules = ruleset or domain.Ruleset.preset("classic")
    for index in range(count):
        pair = pairings[index % len(pairings)]
        states, winner = play_one(rules, pair, derive_seed(seed, "game", index))
        yield index, states, winner


def play_one(
    rules: domain.Ruleset, pair: tuple[str, str], deal_seed: str
) -> tuple[list[domain.MatchState], int | None]:
    """One game between the bots `pair` (seat 0, seat 1): its decision positions and winner."""
    now = START_MS
    _, state = domain.decide_and_fold(None, domain.StartMatch("fit", rules, ("a", "b"), now))
    _, state = domain.decide_and_fold(state, domain.StartGame(deal_seed, None, now))
    states: list[domain.MatchState] = []
    winner = play_on(state, pair, deal_seed, now, states)
    return states, winner


def play_on(
    state: domain.MatchState,
    pair: tuple[str, str],
    bot_seed: str,
    now: int = START_MS,
    states: list[domain.MatchState] | None = None,
) -> int | None:
    """Play the game in `state` to its end between fresh bots `pair` (seat 0, seat 1) seeded
    from `bot_seed`; returns the winner (None: a stalemate, or no end within `MAX_ACTIONS`).
    The positions where a play action was chosen are appended to `states` if given. (A playout
    of the benchmark's ceiling starts from a held-out position, or from a determinization of
    it: `domain.evaluator.sampling`.)"""
    bots = tuple(make_bot(name, seed=f"{bot_seed}/{seat}") for seat, name in enumerate(pair))
    for _ in range(MAX_ACTIONS):
        game = state.game
        assert game is not None
        if game.over:
            break
        mover = game.to_move
        chosen = None
        for seat in (1 - mover, mover):
            chosen = bots[seat].choose(domain.view(state, seat))
            if chosen is not None:
                break
        if chosen is None:
            break
        if states is not None and not isinstance(chosen, domain.Call):
            states.append(state)
        now += STEP_MS
        _, state = domain.decide_and_fold(state, domain.Act(chosen, now))
    game = state.game
    assert game is not None
    return game.result.winner if game.result is not None else None


# ------------------------------------------------------------------------------------ fitting


def _sigmoid(z: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    out: np.ndarray[Any, Any] = 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))
    return out


def fit_mlp(
    x: np.ndarray[Any, Any],
    y: np.ndarray[Any, Any],
    hidden: int = 16,
    steps: int = 3000,
    rate: float = 0.01,
    l2: float = 1e-4,
    seed: int = 0,
    names: tuple[str, ...] = NAMES,
    sample_weights: np.ndarray[Any, Any] | None = None,
) -> dict[str, Any]:
    """Fit a one-hidden-layer perceptron (or, with `hidden=0`, a logistic regression) to the
    outcomes `y` by full-batch Adam on the (weighted) cross-entropy; returns the weights as
    plain lists."""
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    z = (x - mean) / scale
    rng = np.random.default_rng(seed)
    width = x.shape[1]
    shapes: list[tuple[int, int]] = [(width, hidden), (hidden, 1)] if hidden > 0 else [(width, 1)]
    params: list[np.ndarray[Any, Any]] = []
    for fan_in, fan_out in shapes:
        params.append(rng.normal(0, 1 / np.sqrt(fan_in), (fan_in, fan_out)))
        params.append(np.zeros(fan_out))
    m = [np.zeros_like(w) for w in params]
    v = [np.zeros_like(w) for w in params]
    n = len(y)
    target = y.reshape(-1, 1)
    sw = np.ones((n, 1)) if sample_weights is None else sample_weights.reshape(-1, 1)
    sw = sw / sw.mean()
    for t in range(1, steps + 1):
        acts = [z]
        h = z
        for i in range(0, len(params) - 2, 2):
            h = np.tanh(h @ params[i] + params[i + 1])
            acts.append(h)
        out = _sigmoid(h @ params[-2] + params[-1])
        delta = sw * (out - target) / n
        grads: list[np.ndarray[Any, Any]] = [np.zeros(0)] * len(params)
        for layer in range(len(params) // 2 - 1, -1, -1):
            a = acts[layer]
            w = params[2 * layer]
            grads[2 * layer] = a.T @ delta + l2 * w
            grads[2 * layer + 1] = delta.sum(axis=0)
            if layer > 0:
                delta = (delta @ w.T) * (1 - acts[layer] ** 2)
        for i, g in enumerate(grads):
            m[i] = 0.9 * m[i] + 0.1 * g
            v[i] = 0.999 * v[i] + 0.001 * g * g
            mh = m[i] / (1 - 0.9**t)
            vh = v[i] / (1 - 0.999**t)
            params[i] = params[i] - rate * mh / (np.sqrt(vh) + 1e-8)
    layers = [
        {"w": params[i].tolist(), "b": params[i + 1].tolist()} for i in range(0, len(params), 2)
    ]
    return {
        "features": list(names),
        "mean": mean.tolist(),
        "scale": scale.tolist(),
        "layers": layers,
    }


def predict(weights: dict[str, Any], x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    h = (x - np.asarray(weights["mean"])) / np.asarray(weights["scale"])
    layers = weights["layers"]
    for layer in layers[:-1]:
        h = np.tanh(h @ np.asarray(layer["w"]) + np.asarray(layer["b"]))
    last = layers[-1]
    return _sigmoid(h @ np.asarray(last["w"]) + np.asarray(last["b"])).reshape(-1)


# ------------------------------------------------------------------------------------ measures


def ece(
    chances: np.ndarray[Any, Any],
    outcomes: np.ndarray[Any, Any],
    bins: int = 10,
    weights: np.ndarray[Any, Any] | None = None,
) -> float:
    """Expected calibration error over `bins` equal-width bins of the predicted chance (each
    position weighing `weights`, default 1)."""
    w = np.ones(len(chances)) if weights is None else np.asarray(weights, dtype=float)
    index = np.minimum((chances * bins).astype(int), bins - 1)
    total = 0.0
    for b in range(bins):
        mask = index == b
        if mask.any():
            mw = w[mask]
            gap = np.average(chances[mask], weights=mw) - np.average(outcomes[mask], weights=mw)
            total += mw.sum() * abs(gap)
    return float(total / w.sum())


def brier(chances: np.ndarray[Any, Any], outcomes: np.ndarray[Any, Any]) -> float:
    return float(np.mean((chances - outcomes) ** 2))


def render_weights(weights: dict[str, Any], note: str) -> str:
    """The text of `weights.py` for these weights (what ``crapette bench eval --fit`` writes)."""
    import json
    import textwrap

    body = json.dumps(weights, indent=1)
    note = "\n".join(textwrap.wrap(note, 96, break_on_hyphens=False))
    return (
        f'"""The value function\'s fitted weights: generated, do not edit.\n\n{note}\n"""\n\n'
        "from typing import Any\n\n"
        f"WEIGHTS: dict[str, Any] = {body}\n"
    )


def fit_calibration(chances: np.ndarray[Any, Any], outcomes: np.ndarray[Any, Any]) -> list[float]:
    """Platt scaling: (a, b) of ``sigmoid(a * logit(p) + b)`` fitted to the outcomes, over the
    figures strictly between 0 and 1 (a won or lost line needs no calibration)."""
    keep = (chances > 0) & (chances < 1)
    p = np.clip(chances[keep], 1e-6, 1 - 1e-6)
    z = np.log(p / (1 - p)).reshape(-1, 1)
    weights = fit_mlp(z, outcomes[keep], hidden=0, steps=1500, rate=0.05, names=("logit",))
    # Undo the standardisation: a * (z - mean) / scale + b.
    (w,), b = weights["layers"][0]["w"][0], weights["layers"][0]["b"][0]
    a = w / weights["scale"][0]
    return [float(a), float(b - a * weights["mean"][0])]


def fit_anchor(
    chances: np.ndarray[Any, Any],
    contexts: np.ndarray[Any, Any],
    outcomes: np.ndarray[Any, Any],
    names: tuple[str, ...],
    steps: int = 1500,
) -> dict[str, Any]:
    """The anchor of a depth (`value.Model.anchored`): a logistic regression of the outcomes on
    the logit of the best candidate's calibrated figure and on the position's context, over the
    figures strictly between 0 and 1; returned on the raw inputs (``sigmoid(logit * logit(p) +
    w . context + b)``). The figure's coefficient is held at 0 or more (a better line may not
    lower the position's chance): if the free fit makes it negative, the likelihood being
    concave, the best fit under that bound has it at 0, and the context alone is fitted."""
    keep = (chances > 0) & (chances < 1)
    p = np.clip(chances[keep], 1e-6, 1 - 1e-6)
    x = np.column_stack([np.log(p / (1 - p)), contexts[keep]])
    y = outcomes[keep]
    w, b = _raw_logistic(x, y, ("logit", *names), steps)
    if w[0] < 0:
        rest, b = _raw_logistic(x[:, 1:], y, names, steps)
        w = np.concatenate([[0.0], rest])
    return {"logit": float(w[0]), "b": b, "w": w[1:].tolist(), "context": list(names)}


def _raw_logistic(
    x: np.ndarray[Any, Any], y: np.ndarray[Any, Any], names: tuple[str, ...], steps: int
) -> tuple[np.ndarray[Any, Any], float]:
    """A logistic regression's coefficients and intercept on the raw (unstandardised) inputs."""
    weights = fit_mlp(x, y, hidden=0, steps=steps, names=names)
    w = np.asarray(weights["layers"][0]["w"]).reshape(-1) / np.asarray(weights["scale"])
    b = float(weights["layers"][0]["b"][0]) - float(w @ np.asarray(weights["mean"]))
    return w, b


def fit_scale(scores: np.ndarray[Any, Any], outcomes: np.ndarray[Any, Any]) -> tuple[float, float]:
    """The judge's map (`domain.evaluator.scale`): (a, b) of the logistic regression of the
    outcomes on the search scores (issue 37), on the raw scores."""
    w, b = _raw_logistic(scores.reshape(-1, 1), outcomes, ("score",), 1500)
    return float(w[0]), b


def fit_platt(logits: np.ndarray[Any, Any], outcomes: np.ndarray[Any, Any]) -> tuple[float, float]:
    """(p, q) of ``sigmoid(p * logit + q)`` fitted to the outcomes: the judge's recalibration of
    its position figure (`domain.evaluator.scale.recalibration`)."""
    w, b = _raw_logistic(logits.reshape(-1, 1), outcomes, ("logit",), 1500)
    return float(w[0]), b
