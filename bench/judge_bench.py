"""`crapette bench judge`: what judging a game costs, and how stable its labels are (issue 26).

One classic game of `--decisions` play decisions (400 by default) is played through the engine,
without a server: two `steady` bots that break a priority now and then (`fault_rate`) and miss
half the calls, with one action in five a random legal one instead (so that the game holds real
mistakes, not only faults); the mover resigns at the last decision. Its record is analysed
(`server.readmodels.judge.analyse_record`, the function the server's workers call) at `--depth`
with two seeds, each one timed:

- `wall_s`: the wall time of one analysis (issue 37's targets for a 400-decision classic game in
  one analysis worker on this 2-core machine: ≤ 60 s at `normal`, ≤ 10 s at `quick`:
  `TARGET_S`);
- `agreement`: of the decisions either analysis labels `mistake` or `blunder`, the share both
  label the same (target ≥ 90 %); `flagged_agreement`, the share both label a mistake or worse
  (a blunder in one, a mistake in the other agree there); `agreement_all`: the share of every
  decision both judge the same.

With `--trust` (issue 37: is the judge right?) it measures instead, on held-out deals
(`--trust-seed`), each figure with its standard error:

1. **the arrow**: a player that always plays the judge's best action (`ArrowPlayer`: the
   judge's watch, shown every position, playing its first candidate) against `sharp` and
   against `expert`, `--arrow-games` games each, seats alternated, classic, call mode;
2. **accuracy follows strength**: `--pair-games` single games in each of `TRUST_PAIRINGS`,
   each analysed at `--depth`; per pairing each bot's wins, mean accuracy and mistakes and
   blunders per 100 decisions;
3. **labels hold**: up to `--label-checks` decisions labelled mistake or blunder and as many
   labelled best or good (a move other than the best), taken over all the analyses, checked
   again with other seeds and `--label-deals` playouts per move (`recheck`);
4. **time**: one `--decisions` game (as above) analysed at `quick` and at `normal`.

With `--fit` it fits the judge's map from search scores to win chances on `--fit-games` games
and writes `domain/evaluator/scale_weights.py`, with the position figure's calibration on half
as many held-out games (docs/evaluator.md § The scale). With `--horizon-games` it checks the
playouts' horizon against playouts to the end of the game on flagged decisions of that many
games (`--horizon-longer`: longer horizons too; docs/evaluator.md § Playouts and the horizon).

The figures go to docs/benchmarks.md. Run it under `nice -n 10` on a shared machine."""

from __future__ import annotations

import json
import math
import os
import random
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import click

MISTAKES = ("mistake", "blunder")
# Issue 37's wall-time targets of one analysis of a 400-decision classic game, in one analysis
# worker (docs/evaluator.md § Depths and time); `deep` has none.
TARGET_S = {"quick": 10.0, "normal": 60.0}
TARGET_DECISIONS = 400


def target_text(depth: str) -> str:
    """The wall-time target of an analysis at `depth`, in words (what the benches print)."""
    if depth not in TARGET_S:
        return f"no target at {depth}"
    targets = ", ".join(f"<= {s:.0f} s at {d}" for d, s in TARGET_S.items())
    return f"target for {TARGET_DECISIONS} decisions: {targets}"


def judged_game(decisions: int, seed: int = 26, random_share: float = 0.2) -> dict[str, Any]:
    """The record of one classic game of `decisions` play decisions (see the module's doc);
    the first deal of a few that lasts that long."""
    import domain
    from domain.bots import make_bot
    from domain.engine_match import EngineMatch
    from records.export import record_from_events

    rng = random.Random(seed)
    longest: tuple[int, list[domain.Event]] = (-1, [])
    for attempt in range(12):
        table = EngineMatch("classic", players=("Ann", "Bob"), match_id=f"m-judge{seed}-{attempt}")
        table.deal(seed=f"{rng.getrandbits(256):064x}")
        bots = [
            make_bot("steady", seed=f"{seed}/{attempt}/{s}", fault_rate=0.1, miss_call_rate=0.5)
            for s in (0, 1)
        ]
        played = 0
        while not table.game.over and played < decisions:
            mover = table.game.to_move
            other = 1 - mover
            call = bots[other].choose(domain.view(table.state, other))
            if isinstance(call, domain.Call):
                table.act(call, rng.randrange(300, 2000))
                continue
            legal = [
                a
                for a in domain.legal_actions(table.state, mover)
                if isinstance(a, domain.Move | domain.Turn | domain.Discard | domain.Pass)
            ]
            action = bots[mover].choose(domain.view(table.state, mover))
            if legal and (action is None or rng.random() < random_share):
                action = rng.choice(legal)
            if action is None:
                break
            table.act(action, rng.randrange(300, 3000))
            if isinstance(action, domain.Move | domain.Turn | domain.Discard):
                played += 1
        if played >= decisions and not table.game.over:
            table.act(domain.Resign(table.game.to_move))
            return record_from_events(table.events)
        if not table.game.over:
            table.act(domain.Resign(table.game.to_move))
        if played > longest[0]:
            longest = (played, list(table.events))
    return record_from_events(longest[1])


def labels(result: dict[str, Any]) -> dict[tuple[str, int], str]:
    """Each judged decision's label, by (kind, version)."""
    found: dict[tuple[str, int], str] = {}
    for game in result["games"]:
        for d in game["decisions"]:
            found[("move", int(d["version"]))] = d["judgement"]
        for d in game.get("missed_calls", []):
            found[("call", int(d["version"]))] = d["judgement"]
    return found


def agreement(one: dict[str, Any], two: dict[str, Any]) -> dict[str, Any]:
    a, b = labels(one), labels(two)
    keys = sorted(set(a) & set(b))
    flagged = [k for k in keys if a[k] in MISTAKES or b[k] in MISTAKES]
    same = sum(1 for k in flagged if a[k] == b[k])
    both = sum(1 for k in flagged if a[k] in MISTAKES and b[k] in MISTAKES)
    every = sum(1 for k in keys if a[k] == b[k])
    return {
        "labelled": len(flagged),
        "agreement": round(same / len(flagged), 4) if flagged else 1.0,
        "flagged_agreement": round(both / len(flagged), 4) if flagged else 1.0,
        "agreement_all": round(every / len(keys), 4) if keys else 1.0,
    }


def measure(
    decisions: int, depth: str, seeds: tuple[int, int], game_seed: int, games: int = 1
) -> dict[str, Any]:
    """`games` games (game seeds `game_seed`, `game_seed + 1`, ...), each analysed with both
    seeds; the wall times per analysis, the labels' agreement pooled over the games."""
    from server.readmodels.judge import analyse_record

    walls: list[float] = []
    pairs: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for number in range(games):
        record = judged_game(decisions, game_seed + number)
        runs: list[dict[str, Any]] = []
        for seed in seeds:
            started = time.perf_counter()
            runs.append(analyse_record(record, depth=depth, seed=seed))
            walls.append(time.perf_counter() - started)
        pairs.append((runs[0], runs[1]))
    pooled = tuple(
        {"games": [g for n, pair in enumerate(pairs) for g in _keyed(pair[k], n)]} for k in (0, 1)
    )
    judged = [g for one, _ in pairs for g in one["games"]]
    moves = sum(len(g["decisions"]) for g in judged)
    calls = sum(len(g.get("missed_calls", [])) for g in judged)
    counts = dict.fromkeys(("best", "good", "inaccuracy", "mistake", "blunder"), 0)
    for game in judged:
        for seat in game["seats"]:
            for name, n in seat["counts"].items():
                counts[name] += n
    return {
        "depth": depth,
        "seeds": list(seeds),
        "games": games,
        "decisions": moves,
        "missed_calls": calls,
        "wall_s": [round(w, 2) for w in walls],
        "wall_s_max": round(max(walls), 2),
        "ms_per_decision": round(1000 * sum(walls) / len(seeds) / max(1, moves + calls), 2),
        "counts": counts,
        **agreement(pooled[0], pooled[1]),
    }


def _keyed(result: dict[str, Any], number: int) -> list[dict[str, Any]]:
    """The games of one analysis with versions made distinct across games (number × 10⁶)."""
    shift = number * 1_000_000
    return [
        {
            "decisions": [{**d, "version": d["version"] + shift} for d in g["decisions"]],
            "missed_calls": [
                {**d, "version": d["version"] + shift} for d in g.get("missed_calls", [])
            ],
        }
        for g in result["games"]
    ]


# ------------------------------------------------------------------------------ --trust

TRUST_PAIRINGS: tuple[tuple[str, str], ...] = (
    ("random", "steady"),
    ("steady", "sharp"),
    ("sharp", "expert"),
    ("random", "sharp"),
    ("steady", "expert"),
)
ARROW = "arrow"
START_MS = 1_764_000_000_000


class ArrowPlayer:
    """Plays the judge's best action at every decision (`domain.evaluator.judging.Watch`,
    shown every position as the judge is); its calls are the judge's bot's."""

    def __init__(self) -> None:
        from domain.evaluator.judging import Watch

        self.watch = Watch()

    def act(self, state: Any, seat: int) -> Any:
        import domain

        self.watch.see(state)
        game = state.game
        if game.to_move == seat and not game.over:
            ranked = self.watch.rank(state, seat)
            if ranked:
                action = ranked[0].action
                self.watch.played(state, action)
                return action
        return self.watch.bots[seat].choose(domain.view(state, seat))


def bot_game(
    pair: tuple[str, str], seed: str, players: tuple[str, str] = ("Ann", "Bob")
) -> tuple[dict[str, Any], int | None]:
    """One classic game (call mode) between `pair` (seat 0, seat 1: a bot's name or `ARROW`),
    dealt from `seed`: its record and its winner (None: a stalemate or no end)."""
    import domain
    from domain.bots import make_bot
    from domain.engine_match import EngineMatch
    from records.export import record_from_events

    table = EngineMatch("classic", players=players, match_id=f"m-trust-{seed[:12]}")
    table.deal(seed=seed)
    actors: list[Callable[[Any, int], Any]] = []
    for s, name in enumerate(pair):
        if name == ARROW:
            actors.append(ArrowPlayer().act)
        else:
            actors.append(_chooser(make_bot(name, seed=f"{seed}/{s}")))
    for _ in range(3000):
        game = table.game
        if game.over:
            break
        mover = game.to_move
        chosen = None
        for seat in (1 - mover, mover):
            chosen = actors[seat](table.state, seat)
            if chosen is not None:
                break
        if chosen is None:
            break
        table.act(chosen, 600)
    game = table.game
    if not game.over:
        table.act(domain.Resign(game.to_move))
    result = table.game.result
    winner = result.winner if result is not None else None
    return record_from_events(table.events), winner


def _chooser(bot: Any) -> Callable[[Any, int], Any]:
    import domain

    def act(state: Any, seat: int) -> Any:
        return bot.choose(domain.view(state, seat))

    return act


def _deal(root: str, *parts: object) -> str:
    from domain.bots.arena import derive_seed

    return derive_seed(root, *parts)


def _arrow_game(args: tuple[str, int, str]) -> float:
    """The arrow's score (1 win, 0.5 stalemate, 0 loss) in game `index` against `opponent`."""
    opponent, index, root = args
    seat = index % 2
    pair = (ARROW, opponent) if seat == 0 else (opponent, ARROW)
    _, winner = bot_game(pair, _deal(root, "arrow", opponent, index))
    return 0.5 if winner is None else float(winner == seat)


def _pair_game(args: tuple[tuple[str, str], int, str, str]) -> dict[str, Any]:
    """One game of a pairing (seats alternated), analysed: each bot's figures."""
    from server.readmodels.judge import analyse_record

    pair, index, root, depth = args
    seated = pair if index % 2 == 0 else (pair[1], pair[0])
    record, winner = bot_game(seated, _deal(root, "pair", *pair, index))
    started = time.perf_counter()
    result = analyse_record(record, depth=depth, seed=index)
    wall = time.perf_counter() - started
    out: dict[str, Any] = {"pair": list(pair), "wall_s": round(wall, 2), "bots": {}}
    [game] = result["games"]
    for seat, name in enumerate(seated):
        own = [d for d in game["decisions"] if d["seat"] == seat]
        labelled = sum(1 for d in own if d["judgement"] in MISTAKES)
        out["bots"][name] = {
            "score": 0.5 if winner is None else float(winner == seat),
            "accuracy": game["seats"][seat]["accuracy"],
            "decisions": len(own),
            "mistakes": labelled,
        }
    out["labels"] = [
        {
            "bot": seated[d["seat"]],
            "version": d["version"],
            "judgement": d["judgement"],
            # The drop the label stands on, in win chance (what a re-check measures): the
            # check's (`cost` is in even-position units, for accuracy).
            "claimed": (d["check"] or {}).get(
                "drop", d["win_chance"]["best"] - d["win_chance"]["after"]
            ),
            "best": d["best"],
            "played": d["played"],
        }
        for d in game["decisions"]
        if d["judgement"] in MISTAKES
        or (d["judgement"] in ("best", "good") and d["best"]["text"] != d["played"]["text"])
    ]
    out["record"] = record
    return out


def recheck(record: dict[str, Any], versions: set[int], deals: int, seed: int) -> dict[int, float]:
    """The drop (best's mean less played's) measured again at these decisions of `record`, by
    `deals` playouts per move from shuffles of another `seed`: the record replayed through a
    watch as the judge replays it (every position seen, every decision ranked)."""
    import domain
    from domain.evaluator.judging import Watch, same
    from records.verify import verify_record
    from server.readmodels.judge import _played

    watch = Watch()
    state = None
    version = 0
    out: dict[int, float] = {}
    for batch in verify_record(record).batches:
        played = _played(batch)
        if state is not None and state.game is not None and played is not None:
            ranked = watch.rank(state, played.seat)
            if version in versions and ranked:
                best = ranked[0].action
                if not same(best, played):
                    values = watch.fork().check(state, played.seat, [best, played], deals, seed)
                    out[version] = sum(values[0]) / deals - sum(values[1]) / deals
                else:
                    out[version] = 0.0
            watch.played(state, played)
        for event in batch:
            state = domain.evolve(state, event)
        assert state is not None
        watch.see(state)
        version += len(batch)
    return out


def _recheck(args: tuple[dict[str, Any], list[int], int, int]) -> dict[int, float]:
    record, versions, deals, seed = args
    return recheck(record, set(versions), deals, seed)


def _mean_se(values: list[float]) -> tuple[float, float]:
    n = len(values)
    if not n:
        return 0.0, 0.0
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    return round(mean, 4), round(math.sqrt(var / n), 4)


def _run(
    work: Callable[[Any], Any],
    items: list[Any],
    workers: int,
    log: Callable[[str], None] | None = None,
) -> list[Any]:
    """`work` over `items` (in `workers` processes), each result logged as it comes (a long
    run stopped half-way still leaves its figures)."""
    done: list[Any] = []
    if workers <= 1:
        results = map(work, items)
        for item, result in zip(items, results, strict=True):
            done.append(result)
            if log is not None:
                log(f"{work.__name__} {_brief(item)}: {_brief(result)}")
        return done
    with ProcessPoolExecutor(workers) as pool:
        for item, result in zip(items, pool.map(work, items), strict=True):
            done.append(result)
            if log is not None:
                log(f"{work.__name__} {_brief(item)}: {_brief(result)}")
    return done


def _brief(value: Any) -> str:
    """A result or an item in one short line (records and label lists left out)."""
    if isinstance(value, dict):
        value = {k: v for k, v in value.items() if k not in ("record", "labels")}
    if isinstance(value, tuple):
        value = tuple(v for v in value if not isinstance(v, dict | list))
    if isinstance(value, list) and len(value) > 8:
        return f"{len(value)} rows"
    return json.dumps(value, default=str)


def run_trust(
    arrow_games: int,
    pair_games: int,
    label_checks: int,
    label_deals: int,
    depth: str,
    decisions: int,
    root: str,
    workers: int,
    log: Callable[[str], None],
) -> dict[str, Any]:
    """The four figure groups of issue 37 (the module's docstring)."""
    figures: dict[str, Any] = {"seed": root, "depth": depth}
    # 1. The arrow.
    arrow: dict[str, Any] = {}
    for opponent in ("sharp", "expert") if arrow_games else ():
        items = [(opponent, i, root) for i in range(arrow_games)]
        scores = _run(_arrow_game, items, workers, log)
        rate, se = _mean_se(scores)
        arrow[opponent] = {"games": len(scores), "score": rate, "se": se}
        log(f"arrow against {opponent}: {rate:.3f} ± {se:.3f} of {len(scores)} games")
    figures["arrow"] = arrow
    if not pair_games:
        return _timed(figures, decisions, log)
    # 2. Accuracy follows strength.
    pair_items = [(pair, i, root, depth) for pair in TRUST_PAIRINGS for i in range(pair_games)]
    games = _run(_pair_game, pair_items, workers, log)
    pairings: list[dict[str, Any]] = []
    per_bot: dict[str, dict[str, list[float]]] = {}
    for pair in TRUST_PAIRINGS:
        mine = [g for g in games if tuple(g["pair"]) == pair]
        row: dict[str, Any] = {"pair": list(pair), "games": len(mine)}
        for name in pair:
            own = [g["bots"][name] for g in mine]
            acc, acc_se = _mean_se([b["accuracy"] for b in own])
            score, score_se = _mean_se([b["score"] for b in own])
            decided = sum(b["decisions"] for b in own)
            mistakes = sum(b["mistakes"] for b in own)
            row[name] = {
                "score": score,
                "score_se": score_se,
                "accuracy": acc,
                "accuracy_se": acc_se,
                "mistakes_per_100": round(100 * mistakes / max(1, decided), 2),
            }
            bucket = per_bot.setdefault(name, {"accuracy": [], "mistakes": [], "decisions": []})
            bucket["accuracy"] += [b["accuracy"] for b in own]
            bucket["mistakes"].append(mistakes)
            bucket["decisions"].append(decided)
        stronger = max(pair, key=lambda n: row[n]["score"])
        weaker = pair[1] if stronger == pair[0] else pair[0]
        row["stronger_more_accurate"] = row[stronger]["accuracy"] > row[weaker]["accuracy"]
        pairings.append(row)
        log(json.dumps(row))
    bots = {
        name: {
            "accuracy": _mean_se(b["accuracy"])[0],
            "accuracy_se": _mean_se(b["accuracy"])[1],
            "mistakes_per_100": round(100 * sum(b["mistakes"]) / max(1, sum(b["decisions"])), 2),
        }
        for name, b in per_bot.items()
    }
    figures["accuracy"] = {"pairings": pairings, "bots": bots}
    walls = [g["wall_s"] for g in games]
    figures["accuracy"]["analysis_wall_s"] = _mean_se(walls)
    # 3. Labels hold.
    rng = random.Random(f"{root}/labels")
    bad = [(g, lab) for g in games for lab in g["labels"] if lab["judgement"] in MISTAKES]
    fine = [(g, lab) for g in games for lab in g["labels"] if lab["judgement"] not in MISTAKES]
    chosen = rng.sample(bad, min(label_checks, len(bad))) + rng.sample(
        fine, min(label_checks, len(fine))
    )
    by_record: dict[int, tuple[dict[str, Any], list[int]]] = {}
    for g, lab in chosen:
        by_record.setdefault(id(g), (g["record"], []))[1].append(lab["version"])
    jobs = [(rec, vs, label_deals, 1_000_003) for rec, vs in by_record.values()]
    measured: dict[tuple[int, int], float] = {}
    rechecked = _run(_recheck, jobs, workers, log)
    for (key, _), found in zip(by_record.items(), rechecked, strict=True):
        for version, drop in found.items():
            measured[(key, version)] = drop
    flagged = [
        (lab, measured[(id(g), lab["version"])])
        for g, lab in chosen
        if lab["judgement"] in MISTAKES
    ]
    calm = [
        (lab, measured[(id(g), lab["version"])])
        for g, lab in chosen
        if lab["judgement"] not in MISTAKES
    ]
    ahead = [1.0 if drop > 0 else 0.0 for _, drop in flagged]
    claimed = sum(lab["claimed"] for lab, _ in flagged)
    found_total = sum(drop for _, drop in flagged)
    figures["labels"] = {
        "deals": label_deals,
        "mistakes_checked": len(flagged),
        "best_ahead": _mean_se(ahead),
        "measured_over_claimed": round(found_total / claimed, 3) if claimed else None,
        "mistake_drop_measured": _mean_se([d for _, d in flagged]),
        "mistake_drop_claimed": _mean_se([lab["claimed"] for lab, _ in flagged]),
        "good_checked": len(calm),
        "good_drop_measured": _mean_se([d for _, d in calm]),
    }
    log(json.dumps(figures["labels"]))
    return _timed(figures, decisions, log)


def _timed(figures: dict[str, Any], decisions: int, log: Callable[[str], None]) -> dict[str, Any]:
    """4. Time: one game of `decisions` play decisions analysed at quick and at normal."""
    if not decisions:
        return figures
    from server.readmodels.judge import analyse_record

    record = judged_game(decisions, 26)
    timing: dict[str, float] = {}
    for name in ("quick", "normal"):
        started, cpu = time.perf_counter(), time.process_time()
        analyse_record(record, depth=name, seed=0)
        timing[f"{name}_wall_s"] = round(time.perf_counter() - started, 2)
        # The CPU the analysis used: what one worker needs of a core, whatever else runs.
        timing[f"{name}_cpu_s"] = round(time.process_time() - cpu, 2)
    # The wall time is what the target is on; on a shared machine it is the CPU time stretched
    # by the load (the 1-minute load average at the end says by how much to expect).
    figures["time"] = {
        "decisions": decisions,
        **timing,
        "targets_s": TARGET_S,
        "met": {d: timing[f"{d}_wall_s"] <= s for d, s in TARGET_S.items()},
        "load_average": round(os.getloadavg()[0], 2),
    }
    log(json.dumps(figures["time"]))
    return figures


# -------------------------------------------------------------------------------- --fit

FIT_PAIRINGS: tuple[tuple[str, str], ...] = (
    ("expert", "sharp"),
    ("sharp", "steady"),
    ("steady", "random"),
    ("expert", "random"),
    ("expert", "expert"),
    ("steady", "sharp"),
)


def _fit_game(args: tuple[int, str, int]) -> list[tuple[float, float, float, int]]:
    """(chosen score, the position's anchor logit before recalibration, outcome for the mover,
    game index) at every `every`-th decision of one game, the watch ranking every decision as
    the judge does."""
    import domain
    from domain.bots.mirror import mirror_game
    from domain.evaluator import scale
    from domain.evaluator.judging import Watch
    from records.verify import verify_record
    from server.readmodels.judge import _played

    index, root, every = args
    pair = FIT_PAIRINGS[index % len(FIT_PAIRINGS)]
    record, winner = bot_game(pair, _deal(root, "fit", index))
    watch = Watch()
    state = None
    rows: list[tuple[float, float, float, int]] = []
    k = 0
    for batch in verify_record(record).batches:
        played = _played(batch)
        if state is not None and state.game is not None and played is not None:
            ranked = watch.rank(state, played.seat)
            if ranked and k % every == index % every:
                outcome = 0.5 if winner is None else float(winner == played.seat)
                seen = domain.view(state, played.seat)
                table = mirror_game(seen)._evolved(turn_number=seen.turn_number)
                rows.append((ranked[0].score, scale.anchor_logit(table), outcome, index))
            k += 1
            watch.played(state, played)
        for event in batch:
            state = domain.evolve(state, event)
        assert state is not None
        watch.see(state)
    return rows


def position_figures(rows: list[tuple[float, float, float, int]], p: float, q: float) -> Any:
    """The position figure the judge shows at each row (the chosen action's chance: 1 or 0 for
    a line the search sees won or lost, else the recalibrated anchor ``p * logit + q``)."""
    import numpy as np

    from domain.bots.sharp import WIN

    score = np.array([r[0] for r in rows])
    z = p * np.array([r[1] for r in rows]) + q
    figure = 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))
    figure[score >= WIN / 2] = 1.0
    figure[score <= -WIN / 2] = 0.0
    return figure


def calibration(
    rows: list[tuple[float, float, float, int]], p: float, q: float, resamples: int = 400
) -> dict[str, Any]:
    """The position figure's calibration on `rows`: ECE (10 equal-width bins) with its standard
    error by resampling whole games (a game's positions are far from independent), ECE over 10
    equal-count bins, Brier, and each bin's count, mean figure and mean outcome."""
    import numpy as np

    from domain.evaluator import fit

    if not rows:
        return {}
    chances = position_figures(rows, p, q)
    outcomes = np.array([r[2] for r in rows])
    games = np.array([r[3] for r in rows])
    ece = fit.ece(chances, outcomes)
    rng = np.random.default_rng(0)
    ids = np.unique(games)
    members = {g: np.flatnonzero(games == g) for g in ids}
    boot = [ece]
    for _ in range(resamples):
        pick = np.concatenate([members[g] for g in rng.choice(ids, len(ids))])
        boot.append(fit.ece(chances[pick], outcomes[pick]))
    index = np.minimum((chances * 10).astype(int), 9)
    bins = [
        {
            "bin": f"{b / 10:.1f}-{(b + 1) / 10:.1f}",
            "n": int((index == b).sum()),
            "figure": round(float(chances[index == b].mean()), 3),
            "outcome": round(float(outcomes[index == b].mean()), 3),
        }
        for b in range(10)
        if (index == b).any()
    ]
    order = np.argsort(chances, kind="stable")
    mass = sum(
        len(part) * abs(float(chances[part].mean() - outcomes[part].mean()))
        for part in np.array_split(order, 10)
        if len(part)
    ) / len(chances)
    return {
        "positions": len(rows),
        "games": len(ids),
        "ece": round(ece, 4),
        "ece_se": round(float(np.std(boot)), 4),
        "ece_equal_count": round(mass, 4),
        "brier": round(fit.brier(chances, outcomes), 4),
        "bins": bins,
    }


def fit_scale(
    games: int,
    held_out: int,
    root: str,
    every: int,
    workers: int,
    write: bool,
    log: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Fit `domain.evaluator.scale`'s (a, b) and the position figure's recalibration (p, q) on
    `games` games, and measure the position figure's calibration (ECE) on `held_out` others,
    before and after the recalibration."""

    train = [
        r
        for rows in _run(_fit_game, [(i, root, every) for i in range(games)], workers, log)
        for r in rows
    ]
    test_root = f"{root}/held-out"
    test = [
        r
        for rows in _run(_fit_game, [(i, test_root, every) for i in range(held_out)], workers, log)
        for r in rows
    ]
    return fit_rows(train, test, games, held_out, root, every, write)


def fit_rows(
    train: list[tuple[float, float, float, int]],
    test: list[tuple[float, float, float, int]],
    games: int,
    held_out: int,
    root: str,
    every: int,
    write: bool,
    resamples: int = 20,
) -> dict[str, Any]:
    """`fit_scale`'s fit and figures on rows already gathered (`_fit_game`'s): the slope (a, b)
    with its standard error over `resamples` resamplings of the fit games, and the position
    figure's Platt map (p, q), kept only if it lowers the held-out games' ECE (else 1, 0: the
    anchor as it is; a map fitted on one set of games may fit their noise, not the anchor's
    error)."""
    import numpy as np

    from domain.bots.sharp import WIN
    from domain.evaluator import fit

    open_rows = [r for r in train if abs(r[0]) < WIN / 2]
    scores = np.array([r[0] for r in open_rows])
    outcomes = np.array([r[2] for r in open_rows])
    a, b = fit.fit_scale(scores, outcomes)
    rng = np.random.default_rng(0)
    games_of = np.array([r[3] for r in open_rows])
    ids = np.unique(games_of)
    members = {g: np.flatnonzero(games_of == g) for g in ids}
    slopes = []
    for _ in range(resamples if len(ids) > 1 else 0):
        pick = np.concatenate([members[g] for g in rng.choice(ids, len(ids))])
        slopes.append(fit.fit_scale(scores[pick], outcomes[pick])[0])
    platt = fit.fit_platt(np.array([r[1] for r in open_rows]), outcomes)
    anchor = calibration(test, 1.0, 0.0)
    mapped = calibration(test, *platt)
    kept = bool(test) and mapped["ece"] < anchor["ece"]
    p, q = platt if kept else (1.0, 0.0)
    shown = mapped if kept else anchor
    figures: dict[str, Any] = {
        "games": games,
        "positions": len(scores),
        "a": round(a, 6),
        "a_se": round(float(np.std(slopes)), 6) if slopes else None,
        "b": round(b, 6),
        "p": round(p, 6),
        "q": round(q, 6),
        "platt": [round(platt[0], 6), round(platt[1], 6)],
        "platt_kept": kept,
        "held_out_games": held_out,
        "held_out_positions": len(test),
        "anchor": anchor,
        "recalibrated": mapped,
        "recalibrated_in_sample": calibration(train, *platt, resamples=0),
        "anchor_on_fit_games": calibration(train, 1.0, 0.0),
        "position_ece": shown.get("ece"),
        "position_ece_se": shown.get("ece_se"),
        "rows": {"train": train, "test": test},
    }
    if write:
        path = Path(__file__).resolve().parents[1] / "domain" / "evaluator" / "scale_weights.py"
        map_note = (
            f"the Platt map fitted ({platt[0]:.4f}, {platt[1]:.4f}) lowered the held-out ECE "
            f"from {anchor.get('ece')} to {mapped.get('ece')}, so p, q are it"
            if kept
            else f"the Platt map fitted ({platt[0]:.4f}, {platt[1]:.4f}) gave a held-out ECE of "
            f"{mapped.get('ece')}, no lower than the anchor's {anchor.get('ece')}, so p, q are "
            "1, 0: the anchor as it is"
        )
        note = (
            f"Fitted on {len(scores)} positions (every {every}th decision) of {games} games of "
            f"seed {root!r}: a = {a:.5f} ± {figures['a_se']} (over resamplings of the games). "
            f"The position figure's ECE on {len(test)} positions of {held_out} held-out games: "
            f"{shown.get('ece')} ± {shown.get('ece_se')}; {map_note}. a, b: the outcome's "
            "logistic regression on the chosen action's search score; p, q: the position "
            "figure's map on the anchor's logit."
        )
        import textwrap

        body = "\n".join(textwrap.wrap(note, 96, break_on_hyphens=False))
        path.write_text(
            '"""Generated by `crapette bench judge --fit` (docs/evaluator.md § The scale).\n\n'
            f'{body}\n"""\n\n'
            f'SCALE: dict[str, float] = {{"a": {a!r}, "b": {b!r}, "p": {p!r}, "q": {q!r}}}\n',
            encoding="utf-8",
        )
    return figures


# --------------------------------------------------------------------------- --horizon

# Pairings whose games have flagged decisions (the `expert`'s and `sharp`'s moves are seldom
# flagged: a sharp-expert game had none).
HORIZON_PAIRINGS: tuple[tuple[str, str], ...] = (
    ("steady", "sharp"),
    ("random", "steady"),
    ("random", "sharp"),
    ("steady", "expert"),
)
END_OF_GAME = 10**9  # turn ends: a playout goes on to the end of the game
END_ACTIONS = 5_000  # actions a playout to the end plays at most


def _horizon_game(
    args: tuple[int, str, int, int, tuple[int, ...], bool],
) -> list[dict[str, Any]]:
    """Up to `per_game` flagged decisions of one game (the played move `FLAG_FROM` or more
    under the choice by the search; spread evenly over the game's flagged ones), each checked
    by `deals` playouts to the judge's horizon (`horizon`), to each of the `longer` horizons
    (`turns_<n>`: n turn ends) and, if `end`, to the end of the game: the same shuffles for
    all."""
    import domain
    from domain.evaluator import judging
    from records.verify import verify_record
    from server.readmodels.judge import FLAG_FROM, _played

    index, root, per_game, deals, longer, end = args
    pair = HORIZON_PAIRINGS[index % len(HORIZON_PAIRINGS)]
    record, _ = bot_game(pair, _deal(root, "horizon", index))
    watch = judging.Watch()
    state = None
    flagged: list[tuple[int, Any, int, Any, Any, float, judging.Watch]] = []
    version = 0
    for batch in verify_record(record).batches:
        played = _played(batch)
        if state is not None and state.game is not None and played is not None:
            ranked = watch.rank(state, played.seat)
            if ranked and not judging.same(ranked[0].action, played):
                after = next(
                    (c.chance for c in ranked if judging.same(c.action, played)), ranked[-1].chance
                )
                drop = ranked[0].chance - after
                if drop >= FLAG_FROM:
                    item = (version, state, played.seat, ranked[0].action, played, drop)
                    flagged.append((*item, watch.fork()))
            watch.played(state, played)
        for event in batch:
            state = domain.evolve(state, event)
        assert state is not None
        watch.see(state)
        version += len(batch)
    step = max(1, len(flagged) // max(1, per_game))
    out: list[dict[str, Any]] = []
    for version, at, seat, best, played, drop in (f[:6] for f in flagged[::step][:per_game]):
        fork = next(f[6] for f in flagged if f[0] == version)
        figures: dict[str, Any] = {"pair": list(pair), "version": version, "search": drop}
        horizons = [("horizon", judging.HORIZON_TURNS, judging.MAX_PLAYOUT_ACTIONS)]
        horizons += [(f"turns_{n}", n, END_ACTIONS) for n in longer]
        horizons += [("end", END_OF_GAME, END_ACTIONS)] if end else []
        for name, turns, actions in horizons:
            kept = judging.HORIZON_TURNS, judging.MAX_PLAYOUT_ACTIONS
            judging.HORIZON_TURNS, judging.MAX_PLAYOUT_ACTIONS = turns, actions
            try:
                started = time.perf_counter()
                values = fork.fork().check(at, seat, [best, played], deals, index)
            finally:
                judging.HORIZON_TURNS, judging.MAX_PLAYOUT_ACTIONS = kept
            diffs = [b - p for b, p in zip(values[0], values[1], strict=True)]
            mean, se = _mean_se(diffs)
            figures[name] = mean
            figures[f"{name}_se"] = se
            figures[f"{name}_s"] = round(time.perf_counter() - started, 1)
        out.append(figures)
    return out


def horizon_check(
    games: int,
    per_game: int,
    deals: int,
    root: str,
    workers: int,
    log: Callable[[str], None],
    longer: tuple[int, ...] = (),
) -> dict[str, Any]:
    """Does the judge's horizon measure the drop playouts to the end of the game measure? On
    flagged decisions of `games` games (`_horizon_game`): `horizon_figures`."""
    items = [(i, root, per_game, deals, longer, True) for i in range(games)]
    rows = [r for found in _run(_horizon_game, items, workers, log) for r in found]
    for row in rows:
        log(json.dumps(row))
    return horizon_figures(rows, games, deals)


def horizon_figures(rows: list[dict[str, Any]], games: int, deals: int) -> dict[str, Any]:
    """The judge's drop (`horizon`) compared with the drop to the end over `rows`
    (`_horizon_game`'s), and so each longer horizon's (`turns_<n>`, under "longer"): the share
    of decisions where the two have the same sign (of those where neither is 0) and where both
    are 0, their correlation, and of the decisions the horizon would label (a drop of the least
    threshold or more, `CONFIRM_SE` standard errors clear of 0) how many have a drop to the end
    above 0 and its mean; beside them, the share of the drops' variance to the end that is the
    deals' noise (a finished game is 1, 0 or 1/2: the correlation cannot exceed the square root
    of one less it)."""
    import numpy as np

    from server.readmodels.judge import CONFIRM_SE, THRESHOLDS

    least = THRESHOLDS[-1][0]
    figures: dict[str, Any] = {"games": games, "deals": deals, "decisions": len(rows)}
    if len(rows) < 2:
        return {**figures, "rows": rows}
    e = np.array([r["end"] for r in rows])

    def compare(key: str) -> dict[str, Any]:
        h = np.array([r[key] for r in rows])
        signed = (e != 0) & (h != 0)
        confirmed = [r for r in rows if r[key] >= least and r[key] >= CONFIRM_SE * r[f"{key}_se"]]
        return {
            "same_sign": round(float(np.mean(np.sign(h[signed]) == np.sign(e[signed]))), 3)
            if signed.any()
            else None,
            "same_sign_of": int(signed.sum()),
            "both_zero": int(((h == 0) & (e == 0)).sum()),
            "correlation": round(float(np.corrcoef(h, e)[0, 1]), 3)
            if h.std() > 0 and e.std() > 0
            else None,
            f"{key}_mean": _mean_se([float(x) for x in h]),
            "confirmed": len(confirmed),
            "confirmed_end_positive": sum(1 for r in confirmed if r["end"] > 0),
            "confirmed_end_mean": _mean_se([r["end"] for r in confirmed]),
            f"{key}_s": round(sum(r[f"{key}_s"] for r in rows), 1),
        }

    noise = float(np.mean([r["end_se"] ** 2 for r in rows]))
    spread = float(np.var(e, ddof=1))
    longer = sorted({k for r in rows for k in r if k.startswith("turns_") and k.count("_") == 1})
    figures.update(compare("horizon"))
    figures.update(
        {
            "end_noise_share": round(noise / spread, 3) if spread > 0 else None,
            "end_mean": _mean_se([float(x) for x in e]),
            "end_s": round(sum(r["end_s"] for r in rows), 1),
            "longer": {key: compare(key) for key in longer},
            "rows": rows,
        }
    )
    return figures


@click.command("judge")
@click.option("--decisions", default=400, show_default=True, help="Play decisions in the game.")
@click.option("--depth", type=click.Choice(["quick", "normal", "deep"]), default="normal",
              show_default=True)  # fmt: skip
@click.option("--seeds", default="0,1", show_default=True, help="The two analyses' seeds.")
@click.option("--game-seed", default=26, show_default=True, help="The first game's seed.")
@click.option("--games", default=1, show_default=True, help="Games played and analysed.")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.option(
    "--trust", is_flag=True, help="Is the judge right? The four figure groups of issue 37."
)
@click.option(
    "--arrow-games",
    default=400,
    show_default=True,
    help="--trust: games against each of sharp and expert.",
)
@click.option("--pair-games", default=40, show_default=True, help="--trust: games per pairing.")
@click.option(
    "--label-checks", default=60, show_default=True, help="--trust: labels re-checked, each kind."
)
@click.option(
    "--label-deals", default=32, show_default=True, help="--trust: playouts per move in a re-check."
)
@click.option(
    "--trust-seed",
    default="bench-judge-trust",
    show_default=True,
    help="--trust / --fit: the deals' seed.",
)
@click.option(
    "--fit", "do_fit", is_flag=True, help="Fit the judge's scale and write scale_weights.py."
)
@click.option(
    "--fit-games",
    default=240,
    show_default=True,
    help="--fit: games fitted on (and half as many held out).",
)
@click.option("--every", default=4, show_default=True, help="--fit: every n-th decision of a game.")
@click.option(
    "--horizon-games",
    default=0,
    show_default=True,
    help="Check the playouts' horizon against playouts to the end on flagged decisions of this "
    "many games (docs/evaluator.md § Playouts).",
)
@click.option(
    "--horizon-decisions", default=10, show_default=True, help="--horizon-games: decisions a game."
)
@click.option(
    "--horizon-deals", default=8, show_default=True, help="--horizon-games: playouts per move."
)
@click.option(
    "--horizon-longer",
    default="",
    show_default=True,
    help="--horizon-games: longer horizons to compare too, in turn ends (like 4,6).",
)
@click.option("--workers", default=1, show_default=True, help="--trust / --fit: processes.")
@click.option(
    "--out", type=click.Path(dir_okay=False), default=None, help="Also write the JSON to this file."
)
def judge(
    decisions: int,
    depth: str,
    seeds: str,
    game_seed: int,
    games: int,
    as_json: bool,
    trust: bool,
    arrow_games: int,
    pair_games: int,
    label_checks: int,
    label_deals: int,
    trust_seed: str,
    do_fit: bool,
    fit_games: int,
    every: int,
    horizon_games: int,
    horizon_decisions: int,
    horizon_deals: int,
    horizon_longer: str,
    workers: int,
    out: str | None,
) -> None:
    """Wall time of judging one classic game, and the agreement of two seeds' labels; with
    --trust, whether the judge is right (issue 37); with --fit, its scale."""
    if do_fit or trust or horizon_games:

        def log(line: str) -> None:
            click.echo(line, err=True)

        if horizon_games:
            try:
                longer = tuple(int(n) for n in horizon_longer.split(",") if n.strip())
            except ValueError:
                raise click.BadParameter(
                    "turn ends, like 4,6", param_hint="--horizon-longer"
                ) from None
            found = horizon_check(
                horizon_games, horizon_decisions, horizon_deals, trust_seed, workers, log, longer
            )
        elif do_fit:
            found = fit_scale(
                fit_games, max(1, fit_games // 2), trust_seed, every, workers, True, log
            )
        else:
            found = run_trust(
                arrow_games,
                pair_games,
                label_checks,
                label_deals,
                depth,
                decisions,
                trust_seed,
                workers,
                log,
            )
        rows = found.pop("rows", None)
        text = json.dumps(found, indent=1)
        if out:  # with the fit's rows, to refit or measure again without playing
            full = text if rows is None else json.dumps({**found, "rows": rows})
            Path(out).write_text(full, encoding="utf-8")
        click.echo(text if as_json else _trust_text(found))
        return
    try:
        first, second = (int(s) for s in seeds.split(","))
    except ValueError:
        raise click.BadParameter("two integers, like 0,1", param_hint="--seeds") from None
    result = measure(decisions, depth, (first, second), game_seed, games)
    if as_json:
        click.echo(json.dumps(result, indent=1))
        return
    click.echo(
        f"{games} game(s), {result['decisions']} decisions and {result['missed_calls']} missed "
        f"calls at {depth}, one analysis: "
        f"{', '.join(f'{w:.1f} s' for w in result['wall_s'])} ({target_text(depth)}), "
        f"{result['ms_per_decision']:.1f} ms a decision"
    )
    click.echo(
        f"seeds {first} and {second}: {result['labelled']} decisions labelled mistake or blunder "
        f"by either; the same label for {100 * result['agreement']:.1f} % (target >= 90 %), "
        f"both a mistake or worse for {100 * result['flagged_agreement']:.1f} %; every label "
        f"the same for {100 * result['agreement_all']:.1f} % of all decisions"
    )


def _trust_text(found: dict[str, Any]) -> str:
    """The figures in a few lines (the JSON has them all)."""
    if "same_sign" in found:
        return (
            f"{found['decisions']} flagged decisions of {found['games']} games, "
            f"{found['deals']} playouts per move: the horizon's drop and the drop to the end "
            f"have the same sign in {found['same_sign']} of {found['same_sign_of']} (both 0 in "
            f"{found.get('both_zero')}), correlation {found['correlation']} (the deals' noise: "
            f"{found.get('end_noise_share')} of the variance to the end); mean drop "
            f"{found['horizon_mean']} to the "
            f"horizon, {found['end_mean']} to the end; {found['confirmed']} the horizon "
            f"confirms, {found['confirmed_end_positive']} of them a drop to the end above 0"
        )
    if "a" in found:
        return (
            f"scale fitted on {found['positions']} positions of {found['games']} games: "
            f"a {found['a']}, b {found['b']}; position ECE on {found['held_out_positions']} "
            f"held-out positions: {found['position_ece']} ± {found.get('position_ece_se')} "
            f"(p {found.get('p')}, q {found.get('q')}; the anchor alone: "
            f"{found.get('anchor', {}).get('ece')}, with the Platt map fitted: "
            f"{found.get('recalibrated', {}).get('ece')})"
        )
    lines = []
    for name, row in found.get("arrow", {}).items():
        lines.append(
            f"arrow against {name}: {row['score']:.3f} ± {row['se']:.3f} of {row['games']} games"
        )
    for row in found.get("accuracy", {}).get("pairings", []):
        a, b = row["pair"]
        lines.append(
            f"{a}-{b} ({row['games']} games): {a} {row[a]['accuracy']} ± {row[a]['accuracy_se']}, "
            f"{b} {row[b]['accuracy']} ± {row[b]['accuracy_se']}; stronger more accurate: "
            f"{row['stronger_more_accurate']}"
        )
    lines.append(json.dumps(found.get("labels")))
    lines.append(json.dumps(found.get("time")))
    return "\n".join(lines)
