"""Which decisions count for accuracy, how a cost maps to it, and where the labels begin
(issue 37, docs/evaluator.md § Accuracy and § Thresholds): measured on bot games.

`collect` plays single classic games of each pairing (`bench.judge_bench.bot_game`, seats
alternated) and analyses each (`server.readmodels.judge.analyse_record`, the function the server's
workers call), keeping what a definition of accuracy needs of every decision: its seat's bot, the
candidates' chances, the best's and the played's, the check. `compare` gives the analyses' own
figures per pairing (the gap per game) and per bot; `sweep` recomputes every game's accuracies under
other definitions (which decisions count, how a cost maps to accuracy), so a definition is chosen on
many games at once, not tuned to one; `drops` gives the distribution of the search's and the checks'
drops by bot (what the thresholds rest on).

```sh
nice -n 10 .venv/bin/python -m bench.accuracy_bench collect --out /tmp/acc.json
nice -n 10 .venv/bin/python -m bench.accuracy_bench collect --depth normal --games 2 --out n.json
.venv/bin/python -m bench.accuracy_bench compare /tmp/acc.json   # or sweep, or drops
```
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# (pairing, games): random-steady is the pairing the Chromium test plays.
PAIRINGS: tuple[tuple[tuple[str, str], int], ...] = (
    (("random", "steady"), 20),
    (("steady", "sharp"), 5),
    (("sharp", "expert"), 5),
    (("random", "sharp"), 5),
    (("steady", "expert"), 5),
)
ROOT = "accuracy-bench"


def collect_game(pair: tuple[str, str], index: int, depth: str = "quick") -> dict[str, Any]:
    """One game of `pair` (seats alternated by `index`), analysed at `depth`: the winner's bot
    and every judged decision (moves, missed and wrong calls) with its seat's bot."""
    from bench.judge_bench import _deal, bot_game
    from server.readmodels.judge import analyse_record

    seated = pair if index % 2 == 0 else (pair[1], pair[0])
    record, winner = bot_game(seated, _deal(ROOT, "pair", *pair, index))
    started = time.perf_counter()
    result = analyse_record(record, depth=depth, seed=index)
    wall = time.perf_counter() - started
    [game] = result["games"]
    judged = game["decisions"] + game["missed_calls"] + game["wrong_calls"]
    return {
        "pair": list(pair),
        "index": index,
        "seated": list(seated),
        "winner": None if winner is None else seated[winner],
        "wall_s": round(wall, 2),
        "seats": game["seats"],
        "decisions": [{**d, "bot": seated[d["seat"]]} for d in judged],
    }


def collect(
    pairings: Sequence[tuple[tuple[str, str], int]] = PAIRINGS, depth: str = "quick"
) -> list[dict[str, Any]]:
    games = []
    for pair, count in pairings:
        for index in range(count):
            game = collect_game(pair, index, depth)
            print(
                f"{'-'.join(pair)} #{index}: winner {game['winner']}, "
                f"{len(game['decisions'])} decisions, {game['wall_s']} s",
                file=sys.stderr,
                flush=True,
            )
            games.append(game)
    return games


def compare(games: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The analyses' own figures. Per pairing: the gap per game (the second bot's accuracy less
    the first's), each bot's wins; per bot: the mean accuracy and mistakes and blunders per
    100 decisions."""
    pairings: dict[str, Any] = {}
    bots: dict[str, dict[str, list[float]]] = {}
    for game in games:
        key = "-".join(game["pair"])
        entry = pairings.setdefault(key, {"gaps": [], "wins": {}, "winner_higher": 0, "games": 0})
        acc = {bot: game["seats"][seat]["accuracy"] for seat, bot in enumerate(game["seated"])}
        a, b = game["pair"]
        entry["games"] += 1
        entry["gaps"].append(round(acc[b] - acc[a], 1))
        winner = game["winner"]
        if winner is not None:
            entry["wins"][winner] = entry["wins"].get(winner, 0) + 1
            entry["winner_higher"] += acc[winner] > acc[a if winner == b else b]
        for seat, bot in enumerate(game["seated"]):
            own = [d for d in game["decisions"] if d["seat"] == seat]
            moves = sum(1 for d in own if d.get("played") is not None)
            bad = sum(1 for d in own if d["judgement"] in ("mistake", "blunder"))
            figures = bots.setdefault(bot, {"accuracy": [], "per100": []})
            figures["accuracy"].append(acc[bot])
            figures["per100"].append(100.0 * bad / max(1, moves))
    for entry in pairings.values():
        gaps = entry["gaps"]
        entry["gap_mean"] = round(statistics.mean(gaps), 1)
        entry["gap_sd"] = round(statistics.stdev(gaps), 1) if len(gaps) > 1 else 0.0
        entry["gap_min"] = min(gaps)
    return {
        "pairings": pairings,
        "bots": {
            bot: {
                "accuracy": round(statistics.mean(f["accuracy"]), 1),
                "mistakes_per_100": round(statistics.mean(f["per100"]), 2),
                "games": len(f["accuracy"]),
            }
            for bot, f in bots.items()
        },
    }


def _parts(
    d: dict[str, Any], unit: str = "even", won: float = 0.0, free_unchecked: float = 0.0
) -> tuple[float, float, bool]:
    """A kept decision's cost and stake (`unit`: "even", even-position units, a chance above
    `won` counted as `won`, the judge's `WON_FROM` when 0; or "chance", drops in win chance)
    and whether it always counts (a fault or a call), from its chances and check as the
    analysis kept them. `free_unchecked`: a move no playout checked whose search drop (in win
    chance) is under it costs nothing."""
    from server.readmodels.judge import CALL_COST_AT_LEAST, WON_FROM
    from server.readmodels.judge import even_drop as even

    def in_chance(best: float, after: float) -> float:
        return max(0.0, best - after)

    def in_even(best: float, after: float) -> float:
        return even(best, after, won or WON_FROM)

    even_drop = in_even if unit == "even" else in_chance

    chance = d["win_chance"]
    best, after = float(chance["best"]), float(chance["after"])
    if d.get("played") is None:  # a missed or a wrong call: two choices, the worse one made
        cost = max(even_drop(best, after), CALL_COST_AT_LEAST)
        return cost, cost, True
    found = [float(c) for c in d.get("candidates", {}).values()] or [best]
    check = d.get("check")
    if check:
        cost = even_drop(check["best"], check["played"]) if check["drop"] > 0 else 0.0
    elif best - after < free_unchecked and not d.get("faulty"):
        cost = 0.0
    else:
        cost = even_drop(best, after)
    return cost, max(even_drop(max(found), min(found)), cost), bool(d.get("faulty"))


def _accuracy(
    decisions: Sequence[dict[str, Any]],
    share: bool,
    counts_from: float,
    free: float,
    unit: str = "even",
    won: float = 0.0,
    free_unchecked: float = 0.0,
) -> float:
    values = []
    for d in decisions:
        cost, stake, always = _parts(d, unit, won, free_unchecked)
        if not always and stake < counts_from:
            continue
        margin = 0.0 if d.get("faulty") else free  # a fault's cost is the rule's
        lost = max(0.0, cost - margin)
        if share:  # the share of the stake kept
            room = stake - margin
            values.append(100.0 if lost <= 0 or room <= 0 else 100.0 * (1 - min(1.0, lost / room)))
        else:  # right or wrong: within `free` of the best
            values.append(100.0 if lost <= 0 else 0.0)
    return statistics.mean(values) if values else 100.0


# sweep's definitions: (unit, share, counts_from, free, won, free_unchecked), `_accuracy`'s.
# The first is format 3's (no WON_FROM: a chance counted up to 99.5 %), the second the judge's.
DEFINITIONS: tuple[tuple[str, bool, float, float, float, float], ...] = (
    ("even", True, 0.03, 0.02, 0.995, 0.0),
    ("even", True, 0.03, 0.02, 0.8, 0.0),
    *(("even", True, 0.03, 0.02, won, 0.0) for won in (0.6, 0.7, 0.75, 0.85, 0.9, 0.95)),
    *(("even", True, 0.03, free, 0.8, 0.0) for free in (0.0, 0.01)),
    *(("even", True, cf, 0.02, 0.8, 0.0) for cf in (0.02, 0.04)),
    # Issue 37's first candidate: a drop the playouts never checked (under FLAG_FROM) is free.
    *(("even", True, 0.03, 0.02, 0.995, fu) for fu in (0.02, 0.03)),
    ("even", False, 0.03, 0.02, 0.995, 0.0),
    *(("chance", True, cf, free, 0.0, 0.0) for cf, free in ((0.02, 0.0), (0.03, 0.01))),
)


def sweep(games: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The `DEFINITIONS` of accuracy recomputed on the kept decisions (whatever the analysis
    shipped): the share of the stake kept or right-or-wrong, in even-position units (a chance
    above `won` counted as `won`) or in win chance, counted from a stake of `counts_from`, a
    cost within `free` costing nothing, a move unchecked with a search drop under
    `free_unchecked` free. For each: the random-steady gap over games (mean, standard
    deviation, least, how many games at 15 or more), each pairing's mean gap and its standard
    error, each bot's mean accuracy. In `DEFINITIONS`' order."""
    rows: list[dict[str, Any]] = []
    for unit, share, counts_from, free, won, free_unchecked in DEFINITIONS:
        gaps: dict[str, list[float]] = {}
        bots: dict[str, list[float]] = {}
        for game in games:
            acc = {
                bot: _accuracy(
                    [d for d in game["decisions"] if d["seat"] == seat],
                    share,
                    counts_from,
                    free,
                    unit,
                    won,
                    free_unchecked,
                )
                for seat, bot in enumerate(game["seated"])
            }
            a, b = game["pair"]
            gaps.setdefault(f"{a}-{b}", []).append(acc[b] - acc[a])
            for bot, value in acc.items():
                bots.setdefault(bot, []).append(value)
        rs = gaps.get("random-steady", [0.0, 0.0])
        sd = statistics.stdev(rs) if len(rs) > 1 else 0.0
        rows.append(
            {
                "unit": unit,
                "share": share,
                "counts_from": counts_from,
                "free": free,
                "won": won,
                "free_unchecked": free_unchecked,
                "rs_mean": round(statistics.mean(rs), 1),
                "rs_sd": round(sd, 1),
                "rs_min": round(min(rs), 1),
                "rs_at_least_15": f"{sum(1 for g in rs if g >= 15)}/{len(rs)}",
                "pairings": {
                    k: f"{statistics.mean(v):.1f} ± {_se(v):.1f} ({len(v)})"
                    for k, v in gaps.items()
                },
                "bots": {k: round(statistics.mean(v), 1) for k, v in bots.items()},
            }
        )
    return rows


def _se(values: Sequence[float]) -> float:
    return statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else 0.0


def drops(games: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """By bot: quantiles of the search's drop of its moves other than the best, and every
    check's measured drop (win chance)."""
    found: dict[str, dict[str, list[float]]] = {}
    for game in games:
        for d in game["decisions"]:
            if d.get("played") is None:
                continue
            figures = found.setdefault(d["bot"], {"search": [], "checked": []})
            chance = d["win_chance"]
            if d["best"]["text"] != d["played"]["text"]:
                figures["search"].append(float(chance["best"]) - float(chance["after"]))
            if d.get("check"):
                figures["checked"].append(float(d["check"]["drop"]))
    out: dict[str, Any] = {}
    for bot, figures in found.items():
        search = sorted(figures["search"])
        out[bot] = {
            "non_best": len(search),
            "search_quantiles": _quantiles(search),
            "search_at_least": {
                str(t): sum(1 for x in search if x >= t) for t in (0.03, 0.05, 0.1, 0.2, 0.3)
            },
            "checked": sorted(round(x, 3) for x in figures["checked"]),
        }
    return out


def _quantiles(values: Sequence[float]) -> dict[str, float]:
    if not values:
        return {}
    return {
        f"p{q}": round(values[min(len(values) - 1, int(q / 100 * len(values)))], 4)
        for q in (50, 75, 90, 95, 99)
    }


def main(argv: Sequence[str]) -> None:
    if argv[:1] == ["collect"]:
        out = Path(argv[argv.index("--out") + 1]) if "--out" in argv else Path("accuracy.json")
        depth = argv[argv.index("--depth") + 1] if "--depth" in argv else "quick"
        # --games N: N games of every pairing instead of PAIRINGS' counts.
        each = int(argv[argv.index("--games") + 1]) if "--games" in argv else 0
        pairings = [(pair, each or count) for pair, count in PAIRINGS]
        out.write_text(json.dumps(collect(pairings, depth)))
        return
    commands = {"compare": compare, "drops": drops, "sweep": sweep}
    if argv[:1] and argv[0] in commands:
        games = json.loads(Path(argv[1]).read_text())
        print(json.dumps(commands[argv[0]](games), indent=1))
        return
    raise SystemExit("usage: python -m bench.accuracy_bench collect|compare|drops|sweep ...")


if __name__ == "__main__":
    main(sys.argv[1:])
