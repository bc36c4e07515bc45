"""`crapette bench engine [--json] [--games N]`: the rules engine's speed, with a same-run baseline.

Measures µs per `evolve` (replaying recorded events), µs per `legal_actions` (on positions met in
play) and complete random games per second for every preset, twice: as played (the engine plus the
random player choosing its actions) and as the engine alone (the same games replayed from their
recorded choices: the same `legal_actions` queries and `decide_and_fold` calls, no choosing). A
machine's speed varies from run to run, so each figure is also given as a ratio to a baseline
measured in the same run: the cost of a bare Python loop copying a dict of 24 tuples (roughly what
one evolve must at least do). Times are the process's CPU time, the best of `--repeat` runs (the
same games each time), so that other work on a busy machine counts as little as it can.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import click

from domain import PRESETS, Ruleset
from domain.actions import AcceptDraw, Action, Call, Move, OfferDraw, Resign, TimeOut
from domain.commands import Act, Command, StartGame, StartMatch
from domain.engine import decide_and_fold, evolve, legal_actions
from domain.events import Event
from domain.state import MatchState

# A game that runs longer than this is reported as unfinished rather than looping for ever.
MAX_ACTIONS_PER_GAME = 200_000
# How often a random opponent tries a call when one is open (the table's watchfulness).
CALL_CHANCE = 0.3
# Actions a random player never takes: they end games early and say nothing about the engine.
NOT_PLAYED = (Resign, OfferDraw, AcceptDraw, TimeOut)
POLICIES = ("uniform", "eager")
# Issue 3's target: complete random games per second on one core, for `classic`.
TARGET_PRESET = "classic"
TARGET_GAMES_PER_S = 100.0


@dataclass
class PlayedGame:
    events: list[Event] = field(default_factory=list)
    actions: int = 0
    finished: bool = False
    # Per action: did the player ask for the opponent's / the mover's legal actions, and what
    # was played (what `replay_game` needs to do the engine's work again without the choosing).
    script: list[tuple[bool, bool, Action]] = field(default_factory=list)


def game_seed(preset: str, index: int) -> str:
    """A fixed seed per (preset, game), so two runs play the same games."""
    return hashlib.sha256(f"bench {preset} {index}".encode()).hexdigest()


def _apply(state: MatchState | None, command: Command, played: PlayedGame) -> MatchState:
    # `decide_and_fold` is decide plus the state its events fold into, as the server uses it.
    events, new = decide_and_fold(state, command)
    played.events.extend(events)
    return new


def _pick(choices: list[Action], rng: random.Random, policy: str) -> Action:
    """`uniform`: any legal action alike. `eager`: a foundation build when there is one, and
    house-to-house shuffles only one time in ten (closer to how people play)."""
    if policy == "eager":
        # One pass; `type(a) is Move` because a list of legal actions holds no subclasses.
        founding: list[Action] = []
        settled: list[Action] = []
        for a in choices:
            if type(a) is Move:
                dst = a.dst[0]
                if dst == "F":
                    founding.append(a)
                elif dst != "T" or a.src[0] != "T":
                    settled.append(a)
            else:
                settled.append(a)
        if founding:
            return rng.choice(founding)
        if settled and rng.random() < 0.9:
            return rng.choice(settled)
    return rng.choice(choices)


def random_game(
    ruleset: Ruleset, seed: str, rng: random.Random, policy: str = "uniform"
) -> PlayedGame:
    """One game of random legal play (with random calls) from the deal of `seed`."""
    played = PlayedGame()
    state = _apply(None, StartMatch("bench", ruleset, ("a", "b"), 0), played)
    state = _apply(state, StartGame(seed, None, 0), played)
    script = played.script
    while played.actions < MAX_ACTIONS_PER_GAME:
        game = state.game
        assert game is not None
        if game.over:
            played.finished = True
            break
        seat = game.to_move
        action: Action | None = None
        asked_opponent = rng.random() < CALL_CHANCE
        if asked_opponent:
            calls = [a for a in legal_actions(state, 1 - seat) if type(a) is Call]
            action = calls[0] if calls else None
        asked_mover = action is None
        if action is None:
            choices = legal_actions(state, seat)
            if game.draw_offer is not None:  # never here: no random player offers a draw
                choices = [a for a in choices if not isinstance(a, NOT_PLAYED)]
            if not choices:
                raise RuntimeError(f"seat {seat} has no legal action in a running game ({seed})")
            action = _pick(choices, rng, policy)
        script.append((asked_opponent, asked_mover, action))
        state = _apply(state, Act(action, 0), played)
        played.actions += 1
    return played


def replay_game(ruleset: Ruleset, seed: str, script: list[tuple[bool, bool, Action]]) -> int:
    """The engine's work of a played game again, from its recorded choices: the same
    `legal_actions` queries and `decide_and_fold` calls, without the random player. Returns the
    actions."""
    state = decide_and_fold(None, StartMatch("bench", ruleset, ("a", "b"), 0))[1]
    state = decide_and_fold(state, StartGame(seed, None, 0))[1]
    for asked_opponent, asked_mover, action in script:
        game = state.game
        assert game is not None
        seat = game.to_move
        if asked_opponent:
            legal_actions(state, 1 - seat)
        if asked_mover:
            legal_actions(state, seat)
        state = decide_and_fold(state, Act(action, 0))[1]
    return len(script)


def _clock() -> float:
    # CPU time of this process: other work on a busy machine does not count against the engine.
    return time.process_time()


def _timed(work: Callable[[], int]) -> tuple[float, int]:
    """(seconds, operations) of one call of `work`, which returns how many operations it did."""
    start = _clock()
    count = work()
    return _clock() - start, count


def baseline_us_per_copy(copies: int = 200_000) -> float:
    """µs per copy of a dict of 24 tuples, with one entry changed: the floor an evolve stands on."""
    piles = {f"P{i}": tuple(range(i % 5)) for i in range(24)}

    def work() -> int:
        current = piles
        for i in range(copies):
            new = dict(current)
            new["P3"] = (i,)
            current = new
        return copies

    seconds, count = _timed(work)
    return seconds / count * 1e6


def _best(repeat: int, work: Callable[[], object]) -> float:
    """The fewest seconds of `repeat` runs of `work`: on a busy machine the other runs measure
    the neighbours as well (the usual `timeit` reasoning)."""
    best = float("inf")
    for _ in range(max(1, repeat)):
        start = _clock()
        work()
        best = min(best, _clock() - start)
    return best


def _policy_row(
    ruleset: Ruleset, name: str, policy: str, games: int, repeat: int, base_us: float
) -> tuple[dict[str, Any], list[PlayedGame]]:
    """One preset and policy: games/s as played and as the engine alone, and the games."""
    played: list[PlayedGame] = []

    def play_all() -> None:
        # The same rng seed every time: every repetition plays the same games.
        rng = random.Random(f"{name} {policy}")
        played[:] = [random_game(ruleset, game_seed(name, i), rng, policy) for i in range(games)]

    def replay_all() -> None:
        for i, game in enumerate(played):
            replay_game(ruleset, game_seed(name, i), game.script)

    seconds = _best(repeat, play_all)
    replay_s = _best(repeat, replay_all)
    row = {
        "games_per_s": round(games / seconds, 1),
        "engine_games_per_s": round(games / replay_s, 1),
        "actions_per_game": round(sum(g.actions for g in played) / games, 1),
        "unfinished": sum(not g.finished for g in played),
        # One game's engine time in the run's own unit (dict copies): comparable across
        # machines and runs, where games per second are not.
        "engine_game_in_baseline_copies": round(replay_s / games * 1e6 / base_us),
    }
    return row, played


def measure(games: int, presets: list[str], repeat: int = 3) -> dict[str, Any]:
    """Every figure of the benchmark, as one JSON-able object (times: the best of `repeat`)."""
    base = min(baseline_us_per_copy() for _ in range(max(1, repeat)))
    per_preset: dict[str, Any] = {}
    classic_events: list[list[Event]] = []
    for name in presets:
        ruleset = Ruleset.preset(name)
        row: dict[str, Any] = {"games": games}
        for policy in POLICIES:
            row[policy], played = _policy_row(ruleset, name, policy, games, repeat, base)
            if policy == "uniform":
                uniform_games = played
        per_preset[name] = row
        if name == "classic":
            classic_events = [g.events for g in uniform_games]

    result: dict[str, Any] = {"baseline_dict_copy_us": round(base, 3), "presets": per_preset}
    if TARGET_PRESET in per_preset:
        result["target"] = target_verdict(per_preset[TARGET_PRESET])
    if classic_events:
        # The same events folded twice: once bare, once asking for the mover's legal actions at
        # every position of a running game; the difference is the cost of legal_actions alone.
        count = _replay(classic_events, query=False)
        queries = _replay(classic_events, query=True)
        replay_s = _best(repeat, lambda: _replay(classic_events, query=False))
        with_query_s = _best(repeat, lambda: _replay(classic_events, query=True))
        evolve_us = replay_s / count * 1e6
        legal_us = max(with_query_s - replay_s, 0.0) / max(queries, 1) * 1e6
        result["evolve_us"] = round(evolve_us, 3)
        result["evolve_ratio"] = round(evolve_us / base, 2)
        result["legal_actions_us"] = round(legal_us, 3)
        result["legal_actions_ratio"] = round(legal_us / base, 2)
    return result


def target_verdict(row: dict[str, Any]) -> dict[str, Any]:
    """Which of the target preset's figures reach the target (as played and engine alone, per
    policy): the answer is printed, not left for the reader to work out."""
    verdict: dict[str, Any] = {"preset": TARGET_PRESET, "games_per_s": TARGET_GAMES_PER_S}
    for policy in POLICIES:
        figures = row[policy]
        verdict[policy] = {
            "as_played": figures["games_per_s"] >= TARGET_GAMES_PER_S,
            "engine_alone": figures["engine_games_per_s"] >= TARGET_GAMES_PER_S,
        }
    return verdict


def _replay(games: list[list[Event]], query: bool) -> int:
    """Fold every game's events; returns the events folded, or the queries made when `query`."""
    count = 0
    for events in games:
        state: MatchState | None = None
        for event in events:
            state = evolve(state, event)
            game = state.game
            if query and game is not None and not game.over:
                legal_actions(state, game.to_move)
                count += 1
            elif not query:
                count += 1
    return count


def _as_text(result: dict[str, Any]) -> str:
    base = result["baseline_dict_copy_us"]
    lines = [f"baseline: {base:.3f} µs per dict copy (24 piles) in this run"]
    if "evolve_us" in result:
        lines.append(
            f"evolve:        {result['evolve_us']:8.2f} µs"
            f"  ({result['evolve_ratio']:.1f}× baseline)"
        )
    if "legal_actions_us" in result:
        lines.append(
            f"legal_actions: {result['legal_actions_us']:8.2f} µs"
            f"  ({result['legal_actions_ratio']:.1f}× baseline)"
        )
    lines.append(
        "complete random games per second (random calls), per policy: as played (engine +"
        " random player) / engine alone (same games replayed without choosing)"
    )
    for name, row in result["presets"].items():
        cells = [
            f"{p} {row[p]['games_per_s']:6.1f}/s / {row[p]['engine_games_per_s']:6.1f}/s"
            f" {row[p]['actions_per_game']:7.1f} actions/game"
            + (f" ({row[p]['unfinished']} unfinished)" if row[p]["unfinished"] else "")
            for p in POLICIES
        ]
        lines.append(f"  {name:<9} " + "  |  ".join(cells))
    target = result.get("target")
    if target is not None:
        marks = [
            f"{p}: as played {_yes(target[p]['as_played'])}, engine alone"
            f" {_yes(target[p]['engine_alone'])}"
            for p in POLICIES
        ]
        lines.append(
            f"target >= {target['games_per_s']:.0f} games/s for {target['preset']}: "
            + "; ".join(marks)
        )
    return "\n".join(lines)


def _yes(met: bool) -> str:
    return "met" if met else "NOT met"


@click.command("engine")
@click.option("--games", default=20, show_default=True, help="Random games per preset and policy.")
@click.option("--preset", "presets", multiple=True, help="Only these presets (repeatable).")
@click.option(
    "--repeat", default=3, show_default=True, help="Runs of each timing; the best one counts."
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def engine(games: int, presets: tuple[str, ...], repeat: int, as_json: bool) -> None:
    """µs per evolve and per legal_actions, random games/s per preset (ratios to a baseline)."""
    names = list(presets) or list(PRESETS)
    unknown = [name for name in names if name not in PRESETS]
    if unknown:
        raise click.BadParameter(f"unknown preset(s): {', '.join(unknown)}", param_hint="--preset")
    result = measure(max(1, games), names, repeat)
    click.echo(json.dumps(result, indent=2) if as_json else _as_text(result))
