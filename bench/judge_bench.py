"""`crapette bench judge`: what judging a game costs, and how stable its labels are (issue 26).

One classic game of `--decisions` play decisions (400 by default) is played through the engine,
without a server: two `steady` bots that break a priority now and then (`fault_rate`) and miss
half the calls, with one action in five a random legal one instead (so that the game holds real
mistakes, not only faults); the mover resigns at the last decision. Its record is analysed
(`records.judge.analyse_record`, the function the server's workers call) at `--depth`
with two seeds, each one timed:

- `wall_s`: the wall time of one analysis (target ≤ 10 s at `normal` on this 2-core machine);
- `agreement`: of the decisions either analysis labels `mistake` or `blunder`, the share both
  label the same (target ≥ 90 %); `flagged_agreement`, the share both label a mistake or worse
  (a blunder in one, a mistake in the other agree there); `agreement_all`: the share of every
  decision both judge the same.

The figures go to docs/benchmarks.md. Run it under `nice -n 10` on a shared machine."""

from __future__ import annotations

import json
import random
import time
from typing import Any

import click

MISTAKES = ("mistake", "blunder")


def judged_game(decisions: int, seed: int = 26, random_share: float = 0.2) -> dict[str, Any]:
    """The record of one classic game of `decisions` play decisions (see the module's doc);
    the first deal of a few that lasts that long."""
    import domain
    from domain.bots import make_bot
    from records.export import record_from_events
    from records.selfplay import Table

    rng = random.Random(seed)
    longest: tuple[int, list[domain.Event]] = (-1, [])
    for attempt in range(12):
        table = Table("classic", players=("Ann", "Bob"), match_id=f"m-judge{seed}-{attempt}")
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
    from records.judge import analyse_record

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


@click.command("judge")
@click.option("--decisions", default=400, show_default=True, help="Play decisions in the game.")
@click.option("--depth", type=click.Choice(["quick", "normal", "deep"]), default="normal",
              show_default=True)  # fmt: skip
@click.option("--seeds", default="0,1", show_default=True, help="The two analyses' seeds.")
@click.option("--game-seed", default=26, show_default=True, help="The first game's seed.")
@click.option("--games", default=1, show_default=True, help="Games played and analysed.")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def judge(
    decisions: int, depth: str, seeds: str, game_seed: int, games: int, as_json: bool
) -> None:
    """Wall time of judging one classic game, and the agreement of two seeds' labels."""
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
        f"{', '.join(f'{w:.1f} s' for w in result['wall_s'])} (target <= 10 s at normal), "
        f"{result['ms_per_decision']:.1f} ms a decision"
    )
    click.echo(
        f"seeds {first} and {second}: {result['labelled']} decisions labelled mistake or blunder "
        f"by either; the same label for {100 * result['agreement']:.1f} % (target >= 90 %), "
        f"both a mistake or worse for {100 * result['flagged_agreement']:.1f} %; every label "
        f"the same for {100 * result['agreement_all']:.1f} % of all decisions"
    )
