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


# The calibration positions a depth's maps are fitted on: every `STRIDE`-th of those kept (deep
# costs some ten times normal per decision).
STRIDE: dict[str, int] = {"quick": 1, "normal": 1, "deep": 6}


def fit_weights(
    train_games: int, seed: str, hidden: int, steps: int, calibration_games: int, every: int
) -> dict[str, Any]:
    """Fit the value function on the turn starts of `train_games` fresh self-play games
    (`fit.FIT_PAIRINGS`), then the benchmark's baseline on every decision, and each depth's
    calibration map and anchor on the search's figures at every `every`-th decision
    (`fit.sampled`, as the benchmark samples; deep on a `STRIDE`-th of them) of
    `calibration_games` other games between bots of mixed strength (`fit.PAIRINGS`, as the
    benchmark plays); returns the weights (what weights.py holds)."""
    import numpy as np

    from domain.evaluator import DEPTHS, fit, value, win_chance
    from domain.evaluator.features import CONTEXT_NAMES, context

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
        for state in fit.sampled(states, every, index):
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
    value.use(weights)  # neither calibrated nor anchored while the maps are fitted
    maps: dict[str, list[float]] = {}
    anchors: dict[str, dict[str, Any]] = {}
    for depth in DEPTHS:
        chosen = kept[:: STRIDE.get(depth, 1)]
        show = _progress(f"calibrating {depth} on {len(chosen)} positions")
        figures, contexts = [], []
        for i, (state, _) in enumerate(chosen):
            game = state.game
            assert game is not None
            figures.append(win_chance(state, game.to_move, depth=depth, seed=i))
            contexts.append(context(game))
            if i % 100 == 99 or i + 1 == len(chosen):
                show(i + 1, len(chosen))
        outcomes = np.asarray([o for _, o in chosen])
        raw = np.asarray(figures)
        a, b = fit.fit_calibration(raw, outcomes)
        maps[depth] = [a, b]
        inner = (raw > 0) & (raw < 1)
        calibrated = raw.copy()
        calibrated[inner] = 1 / (1 + np.exp(-(a * np.log(raw[inner] / (1 - raw[inner])) + b)))
        anchors[depth] = fit.fit_anchor(
            calibrated, np.asarray(contexts), outcomes, CONTEXT_NAMES, steps=steps
        )
    weights["calibration"] = maps
    weights["anchor"] = anchors
    weights["fitted_on"] = {
        "games": train_games,
        "positions": int(first.sum()),
        "seed": seed,
        "calibration_games": calibration_games,
        "calibration_positions": len(kept),
    }
    return weights


def _game_chances(
    args: tuple[int, str, str, int],
) -> tuple[list[float], list[float], list[list[float]]]:
    """One held-out game: the evaluator's chance, the outcome and the baseline's inputs at every
    `every`-th decision (`fit.sampled`), for the seat to move (run in a worker process)."""
    index, seed, depth, every = args
    import domain
    from domain.bots.arena import derive_seed
    from domain.evaluator import features, fit, win_chance

    pair = fit.PAIRINGS[index % len(fit.PAIRINGS)]
    rules = domain.Ruleset.preset("classic")
    states, winner = fit.play_one(rules, pair, derive_seed(seed, "game", index))
    chances, outcomes, baseline = [], [], []
    for state in fit.sampled(states, every, index):
        game = state.game
        assert game is not None
        mover = game.to_move
        chances.append(win_chance(state, mover, depth=depth, seed=index))
        outcomes.append(fit.outcome_for(winner, mover))
        baseline.append(features.cards_left(game))
    return chances, outcomes, baseline


def measure(games: int, seed: str, depth: str, workers: int, every: int = 1) -> dict[str, Any]:
    """Calibration and Brier skill of `win_chance` at every `every`-th decision of `games`
    held-out games, against the baseline fitted beside the value function (weights.py)."""
    import numpy as np

    from domain.evaluator import fit, value

    show = _progress(f"held-out games at {depth}")
    chances: list[float] = []
    outcomes: list[float] = []
    baseline: list[list[float]] = []
    jobs = [(i, seed, depth, every) for i in range(games)]
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


# One position of the ceiling: (game, outcome for the mover, the baseline's inputs, and for each
# playout kind the number of playouts, the sum of their outcomes and of their squares).
CeilingRow = dict[str, Any]
KINDS: tuple[str, ...] = ("omniscient", "fair", "remembering")


def ceiling_points(count: int, positions: int) -> list[int]:
    """`positions` decision indexes spread evenly over a game of `count` decisions (the middle
    of each of `positions` equal stretches), without repeats."""
    if count <= 0 or positions <= 0:
        return []
    return sorted({min(count - 1, int((k + 0.5) * count / positions)) for k in range(positions)})


def _ceiling_game(args: tuple[int, str, int, int, bool]) -> list[CeilingRow]:
    """The ceiling's estimates on one held-out game (run in a worker process): at `positions`
    decisions spread over it (`ceiling_points`), `playouts` playouts to the end by fresh bots
    of the game's own pairing (other seeds) from as many determinizations of the mover's view
    (`fair`: what the view shows), as many that also keep the hands turned over from a waste
    in place (`remembering`: what a mover who watched the whole game knows,
    `sampling.public_hands`) and, if `omniscient`, as many from the true position; with the
    outcome and the baseline's inputs."""
    index, seed, positions, playouts, omniscient = args
    import random

    import domain
    from domain.bots.arena import derive_seed
    from domain.evaluator import features, fit, sampling

    pair = fit.PAIRINGS[index % len(fit.PAIRINGS)]
    rules = domain.Ruleset.preset("classic")
    states, winner = fit.play_one(rules, pair, derive_seed(seed, "game", index))
    public = sampling.public_hands(states)
    rows: list[CeilingRow] = []
    for k in ceiling_points(len(states), positions):
        state = states[k]
        game = state.game
        assert game is not None
        mover = game.to_move
        now = game.move_started_at_ms
        sampler = sampling.Sampler(state, mover)
        remembered = sampling.Sampler(state, mover, public[k])
        rng = random.Random(f"{seed}/ceiling/{index}/{k}")
        row: CeilingRow = {
            "game": index,
            "decision": k,
            "decisions": len(states),
            "outcome": fit.outcome_for(winner, mover),
            "baseline": features.cards_left(game),
        }
        kinds = KINDS if omniscient else ("fair", "remembering")
        sums = {kind: [0, 0.0, 0.0] for kind in kinds}
        for j in range(playouts):
            tag = f"{seed}/ceiling/{index}/{k}/{j}"
            starts = {
                "fair": sampling.as_match(state, sampler.draw(rng)),
                "remembering": sampling.as_match(state, remembered.draw(rng)),
            }
            if omniscient:
                starts["omniscient"] = state
            for kind in kinds:
                tally = {"omniscient": "known"}.get(kind, kind)
                x = fit.outcome_for(fit.play_on(starts[kind], pair, f"{tag}/{tally}", now), mover)
                sums[kind][0] += 1
                sums[kind][1] += x
                sums[kind][2] += x * x
        row.update(sums)
        rows.append(row)
    return rows


def ceiling_figures(
    rows: list[CeilingRow], baseline: dict[str, Any], resamples: int = 1000, seed: int = 0
) -> dict[str, Any]:
    """The ceiling's figures on `rows`: Brier and skill of each playout kind against the
    baseline (weights `baseline`) on the same positions; `*_exact` with the playouts' sampling
    noise removed (the Brier score minus the variance of each mean, estimated without bias by
    the playouts' sample variance over n: for outcomes 0/1, ``p (1 - p) / (n - 1)``); and a
    bootstrap over games (`resamples` draws of as many games, with replacement) of each exact
    skill: its 10th, 50th, 90th and 95th percentiles (the last a one-sided 95 % upper bound).
    Every figure weighs a game's positions by its length (a row stands for ``decisions /
    positions`` decisions of its game), as the benchmark's every K-th decision does: long games,
    the close ones between strong bots, count for more."""
    import numpy as np

    from domain.evaluator import fit

    y = np.asarray([r["outcome"] for r in rows], dtype=float)
    base = fit.predict(baseline, np.asarray([r["baseline"] for r in rows], dtype=float))
    games = sorted({r["game"] for r in rows})
    per_game: dict[int, int] = {}
    for r in rows:
        per_game[r["game"]] = per_game.get(r["game"], 0) + 1
    weight = np.asarray([r.get("decisions", 1) / per_game[r["game"]] for r in rows], dtype=float)
    weight = weight / weight.mean()
    base_sq = weight * (base - y) ** 2
    theirs = float(base_sq.mean())
    figures: dict[str, Any] = {
        "games": len(games),
        "positions": len(rows),
        "playouts": max((r["fair"][0] for r in rows), default=0),
        "brier_baseline": round(theirs, 4),
    }
    of_game = np.asarray([games.index(r["game"]) for r in rows])
    rng = np.random.default_rng(seed)
    draws = [
        np.bincount(rng.integers(0, len(games), len(games)), minlength=len(games))
        for _ in range(resamples)
    ]
    boot: dict[str, Any] = {"resamples": resamples}
    for kind in KINDS:
        if not all(kind in r for r in rows) or not rows:
            continue
        n = np.asarray([r[kind][0] for r in rows], dtype=float)
        total = np.asarray([r[kind][1] for r in rows], dtype=float)
        squares = np.asarray([r[kind][2] for r in rows], dtype=float)
        p = total / n
        variance = np.where(n > 1, (squares - n * p * p) / np.maximum(1.0, n - 1), 0.0) / n
        sq = weight * (p - y) ** 2
        exact = sq - weight * variance
        figures[f"brier_{kind}"] = round(float(sq.mean()), 4)
        figures[f"skill_{kind}"] = round(1 - float(sq.mean()) / theirs, 4)
        figures[f"brier_{kind}_exact"] = round(float(exact.mean()), 4)
        figures[f"skill_{kind}_exact"] = round(1 - float(exact.mean()) / theirs, 4)
        figures[f"ece_{kind}"] = round(fit.ece(p, y, weights=weight), 4)
        skills = []
        for counts in draws:
            w = counts[of_game]
            skills.append(1 - float((w * exact).sum()) / max(1e-12, float((w * base_sq).sum())))
        if skills:
            q = np.percentile(np.asarray(skills), [10, 50, 90, 95])
            boot[f"skill_{kind}_exact"] = {
                f"p{k}": round(float(v), 4) for k, v in zip((10, 50, 90, 95), q, strict=True)
            }
    figures["bootstrap"] = boot
    return figures


def ceiling(
    games: int,
    seed: str,
    positions: int,
    playouts: int,
    workers: int,
    omniscient: bool = True,
    rows_file: Path | None = None,
    resamples: int = 1000,
) -> dict[str, Any]:
    """How well any estimator could do on these games: the playout estimates of `_ceiling_game`
    on `positions` decisions of each of `games` held-out games, scored by `ceiling_figures`
    against the baseline shipped in weights.py. Each game's rows are appended to `rows_file`
    (JSON lines) as it ends, so that a long run can be rescored or resumed from them."""
    from domain.evaluator import value

    show = _progress(f"ceiling: {playouts} playouts a position")
    rows: list[CeilingRow] = []
    jobs = [(i, seed, positions, playouts, omniscient) for i in range(games)]
    out = rows_file.open("w", encoding="utf-8") if rows_file is not None else None
    try:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for i, found in enumerate(pool.map(_ceiling_game, jobs)):
                rows += found
                if out is not None:
                    for row in found:
                        out.write(json.dumps(row) + "\n")
                    out.flush()
                show(i + 1, games)
    finally:
        if out is not None:
            out.close()
    return ceiling_figures(rows, value.model().weights["baseline"], resamples)


@click.command("eval")
@click.option("--games", type=int, default=240, show_default=True, help="Held-out games to play.")
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
    "--every",
    type=int,
    default=4,
    show_default=True,
    help="Judge (and with --fit calibrate on) every Nth decision of a game.",
)
@click.option(
    "--ceiling",
    "ceiling_playouts",
    type=int,
    default=0,
    help="Instead: the ceiling, with this many playouts a position (see docs/evaluator.md).",
)
@click.option(
    "--ceiling-positions",
    type=int,
    default=4,
    show_default=True,
    help="With --ceiling: decisions of each game, spread over it.",
)
@click.option(
    "--omniscient/--no-omniscient",
    default=True,
    show_default=True,
    help="With --ceiling: also play out from the true position.",
)
@click.option(
    "--rows",
    "rows_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="With --ceiling: write each position's playouts to this file (JSON lines).",
)
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
    ceiling_positions: int,
    omniscient: bool,
    rows_file: Path | None,
    as_json: bool,
) -> None:
    """Calibration of the evaluator's win chances on held-out games (issue 26)."""
    if games < 1:
        raise click.BadParameter("at least one game", param_hint="--games")
    if every < 1:
        raise click.BadParameter("at least 1", param_hint="--every")
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
        bound = ceiling(
            games,
            seed,
            max(1, ceiling_positions),
            ceiling_playouts,
            max(1, workers),
            omniscient,
            rows_file,
        )
        click.echo(json.dumps(bound))
        return
    figures = measure(games, seed, depth, max(1, workers), every)
    if as_json:
        click.echo(json.dumps(figures))
        return
    click.echo(
        f"{figures['positions']} positions of {games} games at {depth}: "
        f"ECE {figures['ece']:.4f} (target ≤ 0.03), "
        f"Brier {figures['brier']:.4f} against the baseline's {figures['brier_baseline']:.4f}: "
        f"skill {figures['brier_skill']:.3f} (target ≥ 0.2)"
    )


def _duel(args: tuple[int, str, bool, int]) -> int | None:
    """One game of expert (or the all-knowing expert) against sharp, the expert in seat
    `index % 2`: 1 if it won, 0 if sharp did, None for a stalemate (run in a worker process).
    `replies`: the all-knowing expert's ends of turn judged after sharp's real reply."""
    index, seed, all_knowing, replies = args
    import itertools

    import domain
    from bench.allknowing import AllKnowingExpert
    from domain.bots import make_bot
    from domain.bots.arena import derive_seed, play_match

    expert_seat = index % 2
    names = ("expert", "sharp") if expert_seat == 0 else ("sharp", "expert")
    bots = [make_bot(name, seed=f"{seed}/{index}/{k}") for k, name in enumerate(names)]
    watch = None
    if all_knowing:
        bound = AllKnowingExpert(replies, seed=f"{seed}/{index}/{expert_seat}")
        bots[expert_seat], watch = bound, bound.watch
    deals = (derive_seed(seed, index, k) for k in itertools.count())
    report = play_match(
        domain.Ruleset.preset("classic"),
        (bots[0], bots[1]),
        f"duel-{index}",
        deals,
        1,
        check_every_event=False,
        watch=watch,
    )
    winner = report.games[0].winner
    if winner is None:
        return None
    return 1 if winner == expert_seat else 0


@click.command("bots")
@click.option("--games", type=int, default=10, show_default=True, help="Games (seats alternate).")
@click.option("--seed", default="bench-bots", show_default=True, help="Seed of the deals.")
@click.option("--workers", type=int, default=1, show_default=True, help="Processes to play in.")
@click.option(
    "--all-knowing",
    is_flag=True,
    help="Play the all-knowing expert instead (every card face up for it): a bound, not a bot.",
)
@click.option(
    "--replies",
    type=int,
    default=0,
    show_default=True,
    help="With --all-knowing: ends of turn per decision judged after sharp's real reply.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def bots_cmd(
    games: int, seed: str, workers: int, all_knowing: bool, replies: int, as_json: bool
) -> None:
    """The expert bot against sharp: classic, call mode, seats alternated (issue 26)."""
    if games < 1:
        raise click.BadParameter("at least one game", param_hint="--games")
    if replies and not all_knowing:
        raise click.BadParameter("the replies are the all-knowing bound's", param_hint="--replies")
    if replies < 0:
        raise click.BadParameter("zero or more", param_hint="--replies")
    who = "all-knowing expert" if all_knowing else "expert"
    if replies:
        who += f" that knows sharp's replies ({replies})"
    show = _progress(f"{who} against sharp")
    wins = stalemates = 0
    jobs = [(i, seed, all_knowing, replies) for i in range(games)]
    with ProcessPoolExecutor(max_workers=max(1, workers)) as pool:
        for i, won in enumerate(pool.map(_duel, jobs)):
            wins += won or 0
            stalemates += won is None
            show(i + 1, games)
    figures: dict[str, Any] = {"games": games, "expert_wins": wins, "rate": round(wins / games, 4)}
    if all_knowing:
        figures["all_knowing"] = True
    if replies:
        figures["replies"] = replies
    if as_json:
        click.echo(json.dumps(figures))
        return
    click.echo(
        f"{who} won {wins} of {games} games against sharp ({figures['rate']:.1%}, target ≥ 60 %)"
        + (f"; {stalemates} stalemated" if stalemates else "")
    )
