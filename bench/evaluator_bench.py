"""`crapette bench eval` and `crapette bench bots`: how good the evaluator is (issue 26).

`eval` plays held-out classic games between bots of mixed strength (`domain.evaluator.fit.
PAIRINGS`, deals from a seed the fit never uses) and asks `win_chance` for the seat to move at
every decision: its expected calibration error (10 bins) and Brier score, against a baseline
logistic regression on the cards left in each seat's piles (reserve; hand, X and waste), fitted
on the same training games as the value function (kept beside it in weights.py), so that both are
judged on games neither was fitted on. `--fit` first refits the value function on fresh self-play
games and writes `domain/evaluator/weights.py` (the way the shipped weights were made).

`bots` plays `expert` against `sharp`, classic rules (call mode), one game per deal, seats
alternated, and counts the games the expert won.

docs/benchmarks.md has the figures, docs/evaluator.md the method.
"""

from __future__ import annotations

import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import click

DEFAULT_FIT_SEED = "crapette-evaluator-fit"
WEIGHTS_FILE = Path(__file__).resolve().parents[1] / "domain" / "evaluator" / "weights.py"


def _say(text: str) -> None:
    click.echo(text, err=True)


def _progress(label: str):  # type: ignore[no-untyped-def]
    started = time.monotonic()

    def show(done: int, total: int) -> None:
        if sys.stderr.isatty() or done == total:
            elapsed = time.monotonic() - started
            click.echo(f"\r{label}: {done}/{total} ({elapsed:.0f} s)", err=True, nl=done == total)

    return show


def fit_weights(
    train_games: int, seed: str, hidden: int, steps: int, calibration_games: int, every: int
) -> dict[str, Any]:
    """Fit the value function on the turn starts of `train_games` fresh self-play games
    (`fit.FIT_PAIRINGS`), then the benchmark's baseline and each depth's calibration map on the
    search's figures at every `every`-th decision of `calibration_games` other games between
    bots of mixed strength (`fit.PAIRINGS`, as the benchmark plays); returns the weights (what
    weights.py holds)."""
    import numpy as np

    from domain.evaluator import DEPTHS, fit, value, win_chance

    samples = fit.Samples([], [], [], [], [], [])
    show = _progress("self-play")
    for index, states, winner in fit.games(train_games, seed, pairings=fit.FIT_PAIRINGS):
        samples.add(index, states, winner)
        show(index + 1, train_games)
    x, y = samples.arrays()
    first = np.asarray(samples.first)
    _say(f"fitting on the {first.sum()} turn starts of {train_games} games")
    weights = fit.fit_mlp(x[first], y[first], hidden=hidden, steps=steps)
    kept: list[tuple[Any, float]] = []
    mixed = fit.Samples([], [], [], [], [], [])
    show = _progress("calibration games")
    for index, states, winner in fit.games(calibration_games, f"{seed}/calibration"):
        mixed.add(index, states, winner)
        for state in states[::every]:
            mover = state.game.to_move if state.game is not None else 0
            kept.append((state, fit.outcome_for(winner, mover)))
        show(index + 1, calibration_games)
    weights["baseline"] = fit.fit_mlp(
        np.asarray(mixed.baseline),
        np.asarray(mixed.outcomes),
        hidden=0,
        steps=1500,
        names=fit.BASELINE_NAMES,
    )
    value.use(weights)  # uncalibrated while the maps are fitted
    outcomes = np.asarray([o for _, o in kept])
    maps: dict[str, list[float]] = {}
    for depth in DEPTHS:
        show = _progress(f"calibrating {depth} on {len(kept)} positions")
        figures = []
        for i, (state, _) in enumerate(kept):
            mover = state.game.to_move if state.game is not None else 0
            figures.append(win_chance(state, mover, depth=depth, seed=i))
            if i % 100 == 99 or i + 1 == len(kept):
                show(i + 1, len(kept))
        maps[depth] = fit.fit_calibration(np.asarray(figures), outcomes)
    weights["calibration"] = maps
    weights["fitted_on"] = {
        "games": train_games,
        "positions": int(first.sum()),
        "seed": seed,
        "calibration_games": calibration_games,
        "calibration_positions": len(kept),
    }
    return weights


def _game_chances(args: tuple[int, str, str]) -> tuple[list[float], list[float], list[list[float]]]:
    """One held-out game: the evaluator's chance, the outcome and the baseline's inputs at each
    decision, for the seat to move (run in a worker process)."""
    index, seed, depth = args
    import domain
    from domain.bots.arena import derive_seed
    from domain.evaluator import fit, win_chance

    pair = fit.PAIRINGS[index % len(fit.PAIRINGS)]
    rules = domain.Ruleset.preset("classic")
    states, winner = fit.play_one(rules, pair, derive_seed(seed, "game", index))
    chances, outcomes, baseline = [], [], []
    for state in states:
        game = state.game
        assert game is not None
        mover = game.to_move
        chances.append(win_chance(state, mover, depth=depth, seed=index))
        outcomes.append(fit.outcome_for(winner, mover))
        baseline.append(fit.cards_left(game))
    return chances, outcomes, baseline


def measure(games: int, seed: str, depth: str, workers: int) -> dict[str, Any]:
    """Calibration and Brier skill of `win_chance` on `games` held-out games, against the
    baseline fitted beside the value function on the same training games (weights.py)."""
    import numpy as np

    from domain.evaluator import fit, value

    show = _progress(f"held-out games at {depth}")
    chances: list[float] = []
    outcomes: list[float] = []
    baseline: list[list[float]] = []
    jobs = [(i, seed, depth) for i in range(games)]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for i, (c, o, b) in enumerate(pool.map(_game_chances, jobs)):
            chances += c
            outcomes += o
            baseline += b
            show(i + 1, games)
    p, y = np.asarray(chances), np.asarray(outcomes)
    base = fit.predict(value.model().weights["baseline"], np.asarray(baseline))
    ours, theirs = fit.brier(p, y), fit.brier(base, y)
    return {
        "positions": len(y),
        "ece": round(fit.ece(p, y), 4),
        "brier": round(ours, 4),
        "brier_baseline": round(theirs, 4),
        "brier_skill": round(1 - ours / theirs, 4),
    }


def _ceiling_game(
    args: tuple[int, str, int, int],
) -> list[tuple[float, float, float, list[float]]]:
    """The ceiling's estimates on one held-out game (run in a worker process): at every
    `every`-th decision, the mean outcome for the seat to move of `playouts` playouts to the end
    by fresh bots of the game's own pairing (other seeds), once from the true position (all-
    knowing) and once from as many determinizations of the mover's view (what the mover could
    know); with the outcome and the baseline's inputs."""
    index, seed, every, playouts = args
    import random

    import domain
    from domain.bots.arena import derive_seed
    from domain.evaluator import fit, sampling

    pair = fit.PAIRINGS[index % len(fit.PAIRINGS)]
    rules = domain.Ruleset.preset("classic")
    states, winner = fit.play_one(rules, pair, derive_seed(seed, "game", index))
    rows = []
    for k, state in enumerate(states[every // 2 :: every]):
        game = state.game
        assert game is not None
        mover = game.to_move
        now = game.move_started_at_ms
        sampler = sampling.Sampler(state, mover)
        rng = random.Random(f"{seed}/ceiling/{index}/{k}")
        known = fair = 0.0
        for j in range(playouts):
            tag = f"{seed}/ceiling/{index}/{k}/{j}"
            known += fit.outcome_for(fit.play_on(state, pair, tag + "/known", now), mover)
            drawn = sampling.as_match(state, sampler.draw(rng))
            fair += fit.outcome_for(fit.play_on(drawn, pair, tag + "/fair", now), mover)
        rows.append(
            (
                known / playouts,
                fair / playouts,
                fit.outcome_for(winner, mover),
                fit.cards_left(game),
            )
        )
    return rows


def ceiling(games: int, seed: str, every: int, playouts: int, workers: int) -> dict[str, Any]:
    """How well any estimator could do on these games: Brier scores of playout estimates by the
    games' own bots (all-knowing, and from the mover's view) at every `every`-th decision of
    `games` held-out games, against the baseline on the same positions. A mean of `playouts`
    outcomes is a noisy copy of the chance it estimates; `*_exact` removes that noise
    (``(p - y)^2 - p (1 - p) / (n - 1)``: the Brier of the playouts' expected value)."""
    import numpy as np

    from domain.evaluator import fit, value

    show = _progress(f"ceiling: {playouts} playouts a position")
    rows: list[tuple[float, float, float, list[float]]] = []
    jobs = [(i, seed, every, playouts) for i in range(games)]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for i, found in enumerate(pool.map(_ceiling_game, jobs)):
            rows += found
            show(i + 1, games)
    y = np.asarray([r[2] for r in rows])
    base = fit.predict(value.model().weights["baseline"], np.asarray([r[3] for r in rows]))
    theirs = fit.brier(base, y)
    figures: dict[str, Any] = {
        "positions": len(y),
        "playouts": playouts,
        "brier_baseline": round(theirs, 4),
    }
    for k, name in ((0, "omniscient"), (1, "fair")):
        p = np.asarray([r[k] for r in rows])
        ours = fit.brier(p, y)
        exact = ours - float(np.mean(p * (1 - p))) / max(1, playouts - 1)
        figures[f"brier_{name}"] = round(ours, 4)
        figures[f"skill_{name}"] = round(1 - ours / theirs, 4)
        figures[f"brier_{name}_exact"] = round(exact, 4)
        figures[f"skill_{name}_exact"] = round(1 - exact / theirs, 4)
        figures[f"ece_{name}"] = round(fit.ece(p, y), 4)
    return figures


@click.command("eval")
@click.option("--games", type=int, default=4, show_default=True, help="Held-out games to play.")
@click.option(
    "--depth",
    type=click.Choice(["quick", "normal", "deep"]),
    default="normal",
    show_default=True,
    help="The evaluator's depth.",
)
@click.option("--seed", default="bench-eval", show_default=True, help="Seed of the held-out deals.")
@click.option("--workers", type=int, default=1, show_default=True, help="Processes to play in.")
@click.option("--fit", "refit", is_flag=True, help="First refit the value function (weights.py).")
@click.option("--train-games", type=int, default=200, show_default=True, help="With --fit.")
@click.option("--fit-seed", default=DEFAULT_FIT_SEED, show_default=True, help="With --fit.")
@click.option("--hidden", type=int, default=0, show_default=True, help="With --fit: tanh units.")
@click.option("--steps", type=int, default=1500, show_default=True, help="With --fit: Adam steps.")
@click.option("--calibration-games", type=int, default=60, show_default=True, help="With --fit.")
@click.option(
    "--every", type=int, default=6, show_default=True, help="With --fit: calibrate on every Nth."
)
@click.option(
    "--ceiling",
    "ceiling_playouts",
    type=int,
    default=0,
    help="Instead: the ceiling, with this many playouts a position (see docs/evaluator.md).",
)
@click.option("--ceiling-every", type=int, default=40, show_default=True, help="With --ceiling.")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def eval_cmd(
    games: int,
    depth: str,
    seed: str,
    workers: int,
    refit: bool,
    train_games: int,
    fit_seed: str,
    hidden: int,
    steps: int,
    calibration_games: int,
    every: int,
    ceiling_playouts: int,
    ceiling_every: int,
    as_json: bool,
) -> None:
    """Calibration of the evaluator's win chances on held-out games (issue 26)."""
    if games < 1:
        raise click.BadParameter("at least one game", param_hint="--games")
    if seed == fit_seed:
        raise click.BadParameter(
            "the held-out seed must differ from the fit's", param_hint="--seed"
        )
    if refit:
        from domain.evaluator.fit import render_weights

        weights = fit_weights(train_games, fit_seed, hidden, steps, calibration_games, every)
        note = (
            f"Fitted by `crapette bench eval --fit --train-games {train_games} --fit-seed "
            f"{fit_seed} --hidden {hidden} --steps {steps} --calibration-games "
            f"{calibration_games} --every {every}`."
        )
        WEIGHTS_FILE.write_text(render_weights(weights, note), encoding="utf-8")
        _say(f"wrote {WEIGHTS_FILE}")
        from domain.evaluator import value

        value.use(weights)
    if ceiling_playouts > 0:
        bound = ceiling(games, seed, max(1, ceiling_every), ceiling_playouts, max(1, workers))
        click.echo(json.dumps(bound))
        return
    figures = measure(games, seed, depth, max(1, workers))
    if as_json:
        click.echo(json.dumps(figures))
        return
    click.echo(
        f"{figures['positions']} positions at {depth}: ECE {figures['ece']:.4f} (target ≤ 0.03), "
        f"Brier {figures['brier']:.4f} against the baseline's {figures['brier_baseline']:.4f}: "
        f"skill {figures['brier_skill']:.3f} (target ≥ 0.2)"
    )


def _duel(args: tuple[int, str]) -> int | None:
    """One game of expert against sharp, the expert in seat `index % 2`: the winner's name
    ("expert", "sharp") or None for a stalemate (run in a worker process)."""
    index, seed = args
    import itertools

    import domain
    from domain.bots import make_bot
    from domain.bots.arena import derive_seed, play_match

    expert_seat = index % 2
    names = ("expert", "sharp") if expert_seat == 0 else ("sharp", "expert")
    bots = (
        make_bot(names[0], seed=f"{seed}/{index}/0"),
        make_bot(names[1], seed=f"{seed}/{index}/1"),
    )
    deals = (derive_seed(seed, index, k) for k in itertools.count())
    report = play_match(
        domain.Ruleset.preset("classic"), bots, f"duel-{index}", deals, 1, check_every_event=False
    )
    winner = report.games[0].winner
    if winner is None:
        return None
    return 1 if winner == expert_seat else 0


@click.command("bots")
@click.option("--games", type=int, default=10, show_default=True, help="Games (seats alternate).")
@click.option("--seed", default="bench-bots", show_default=True, help="Seed of the deals.")
@click.option("--workers", type=int, default=1, show_default=True, help="Processes to play in.")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def bots_cmd(games: int, seed: str, workers: int, as_json: bool) -> None:
    """The expert bot against sharp: classic, call mode, seats alternated (issue 26)."""
    if games < 1:
        raise click.BadParameter("at least one game", param_hint="--games")
    show = _progress("expert against sharp")
    wins = stalemates = 0
    with ProcessPoolExecutor(max_workers=max(1, workers)) as pool:
        for i, won in enumerate(pool.map(_duel, [(i, seed) for i in range(games)])):
            wins += won or 0
            stalemates += won is None
            show(i + 1, games)
    figures = {"games": games, "expert_wins": wins, "rate": round(wins / games, 4)}
    if as_json:
        click.echo(json.dumps(figures))
        return
    click.echo(
        f"expert won {wins} of {games} games against sharp ({figures['rate']:.1%}, target ≥ 60 %)"
        + (f"; {stalemates} stalemated" if stalemates else "")
    )
