"""`crapette tournament simulate`: a whole tournament between bots, in-process.

Every table's match is played by the bot arena (domain/bots/arena.py, as `crapette selfplay`
plays), straight through the domain; the tournament is driven by its own `decide`, each result
read off the match's `MatchWon` (`result_of_match`). The run is repeatable from its seed. It
prints the rounds, the byes and the standings; `--export` writes the tournament record and
`--store` imports it (the matches and the tournament stream) into an event store.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from domain import PRESETS, Action, Ruleset, RulesetError, View
from domain.bots import BOT_NAMES, Bot, make_bot
from domain.bots.arena import START_MS, InvariantError, derive_seed, play_match
from domain.tournament import (
    MAX_PLAYERS,
    CreateTournament,
    Format,
    PairRound,
    RegisterPlayer,
    TournamentCommand,
    TournamentEvent,
    TournamentState,
    decide_and_fold,
    result_of_match,
    standings,
)

DEFAULT_SEED = "c1ab"
MAX_GAMES_PER_MATCH = 60  # a `wins:1` match that stalemates deals again; far beyond any real one


class SimulationError(Exception):
    """A match that never ended, or a bot or engine invariant broken: a bug, not an outcome."""


class _Seated:
    """A bot under its tournament name (the arena seats players by `name`)."""

    def __init__(self, bot: Bot, name: str) -> None:
        self._bot = bot
        self.name = name

    def choose(self, view: View) -> Action | None:
        return self._bot.choose(view)

    def delay_hint_ms(self, action: Action) -> int:
        return self._bot.delay_hint_ms(action)


def player_names(players: int, bots: list[str]) -> list[tuple[str, str]]:
    """(name, bot kind) of each player: the kinds taken in turn, `steady 1`, `sharp 2`…"""
    return [(f"{bots[i % len(bots)]} {i + 1}", bots[i % len(bots)]) for i in range(players)]


def simulate(
    fmt: Format,
    players: int,
    rounds: int | None,
    bots: list[str],
    ruleset: Ruleset,
    seed: str,
    tournament_id: str,
) -> tuple[list[TournamentEvent], TournamentState, list[dict[str, Any]]]:
    """Play the whole tournament: its events, final state and every match record."""
    from records.export import record_from_events

    events: list[TournamentEvent] = []
    clock = START_MS
    state: TournamentState | None = None

    def do(command: TournamentCommand) -> TournamentState:
        nonlocal state
        decided, state = decide_and_fold(state, command)
        events.extend(decided)
        return state

    do(CreateTournament(tournament_id, f"Simulated {fmt}", fmt, rounds, ruleset, clock))
    kinds = dict(player_names(players, bots))
    for name, kind in kinds.items():
        clock += 1
        do(RegisterPlayer(name, clock, bot=kind))
    matches: list[dict[str, Any]] = []
    now = do(PairRound(clock))
    while not now.finished:
        for table in now.open_tables:
            seated = tuple(
                _Seated(make_bot(kinds[name], seed=derive_seed(seed, table.match_id, seat)), name)
                for seat, name in enumerate(table.players)
            )
            report = play_match(
                ruleset,
                (seated[0], seated[1]),
                table.match_id,
                _deals(seed, table.match_id),
                MAX_GAMES_PER_MATCH,
            )
            clock = max(clock, report.events[-1].at_ms) + 1
            result = result_of_match(report.state, clock)
            if result is None:
                raise SimulationError(f"{table.match_id}: no end in {MAX_GAMES_PER_MATCH} games")
            matches.append(record_from_events(report.events, public=False))
            now = do(result)
        if not now.finished:
            clock += 1
            now = do(PairRound(clock))
    return events, now, matches


def _deals(seed: str, match_id: str) -> Iterator[str]:
    number = 0
    while True:
        yield derive_seed(seed, match_id, "game", number)
        number += 1


def summary_json(state: TournamentState) -> dict[str, Any]:
    return {
        "tournament_id": state.tournament_id,
        "format": state.format,
        "players": [e.name for e in state.entrants],
        "rounds": [[list(t.players) for t in r.tables] for r in state.rounds],
        "byes": [list(r.byes) for r in state.rounds],
        "standings": [row.to_json() for row in standings(state)],
    }


def _print_text(state: TournamentState) -> None:
    for played in state.rounds:
        tables = "   ".join(" v ".join(t.players) for t in played.tables)
        bye = f"   bye: {', '.join(played.byes)}" if played.byes else ""
        click.echo(f"round {played.number}: {tables}{bye}")
    click.echo(f"{'rank':>4}  {'player':<14}{'points':>7}{'Bh':>6}{'SB':>7}{'DE':>5}{'cards':>7}")
    for row in standings(state):
        click.echo(
            f"{row.rank:>4}  {row.name:<14}{row.score:>7g}{row.buchholz:>6g}"
            f"{row.sonneborn_berger:>7g}{row.direct:>5g}{row.card_points:>7}"
        )


def _bot_list(text: str) -> list[str]:
    kinds = [part.strip() for part in text.split(",") if part.strip()]
    if not kinds or any(kind not in BOT_NAMES for kind in kinds):
        raise click.BadParameter(f"bot kinds among {', '.join(BOT_NAMES)}, comma-separated")
    return kinds


@click.group("tournament")
def tournament() -> None:
    """Tournaments: round-robin and Swiss (docs/tournaments.md)."""


@tournament.command("simulate")
@click.option("--format", "fmt", type=click.Choice(["swiss", "round-robin"]), required=True)
@click.option("--players", type=click.IntRange(2, MAX_PLAYERS), required=True)
@click.option(
    "--rounds", type=click.IntRange(1, 30), default=None, help="Swiss only (default: ⌈log2 N⌉)."
)
@click.option("--bots", default="steady", show_default=True, help="bot kinds, taken in turn")
@click.option("--preset", type=click.Choice(sorted(PRESETS)), default="classic", show_default=True)
@click.option(
    "--match", "match_spec", default="wins:1", show_default=True, help="each table's match target"
)
@click.option(
    "--seed", default=DEFAULT_SEED, show_default=True, help="hex; the deals derive from it"
)
@click.option("--id", "tournament_id", default=None, help="tournament id (default: sim-<seed>)")
@click.option(
    "--export",
    "export_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="write the tournament record here",
)
@click.option(
    "--store",
    "store_url",
    default=None,
    help="import the tournament and its matches into this event store",
)
@click.option("--json", "as_json", is_flag=True, help="print rounds, byes and standings as JSON")
def simulate_cmd(
    fmt: Format,
    players: int,
    rounds: int | None,
    bots: str,
    preset: str,
    match_spec: str,
    seed: str,
    tournament_id: str | None,
    export_path: Path | None,
    store_url: str | None,
    as_json: bool,
) -> None:
    """Bots play a whole tournament; print its rounds, byes and standings."""
    kinds = _bot_list(bots)
    try:
        int(seed, 16)
    except ValueError:
        raise click.BadParameter(f"{seed!r} is not hexadecimal", param_hint="--seed") from None
    if fmt == "round-robin" and rounds is not None:
        raise click.UsageError("a round-robin plays one cycle: --rounds goes with --format swiss")
    if fmt == "swiss" and rounds is None:
        rounds = max(1, math.ceil(math.log2(players)))
    try:
        ruleset = Ruleset.from_json({"preset": preset, "match": match_spec})
    except RulesetError as exc:
        raise click.BadParameter(str(exc), param_hint="--match") from None
    tid = tournament_id or f"sim-{seed.lower()}"[:40]
    try:
        events, state, matches = simulate(fmt, players, rounds, kinds, ruleset, seed.lower(), tid)
    except (SimulationError, InvariantError) as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    except Exception as exc:  # a refused command (a bad --id): one line, never a traceback
        message = getattr(exc, "message", str(exc))
        click.echo(f"error: {message}", err=True)
        sys.exit(1)
    _write(events, state, matches, export_path, store_url)
    if as_json:
        click.echo(json.dumps(summary_json(state), indent=1, ensure_ascii=False))
    else:
        _print_text(state)


def _write(
    events: list[TournamentEvent],
    state: TournamentState,
    matches: list[dict[str, Any]],
    export_path: Path | None,
    store_url: str | None,
) -> None:
    if export_path is None and store_url is None:
        return
    from records.errors import RecordError
    from records.tournament import import_tournament, tournament_record

    record = tournament_record(events, state, matches)
    if export_path is not None:
        export_path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", "utf-8")
    if store_url is not None:
        from server.cli.records import _open_store

        with _open_store(store_url, must_exist=False) as store:
            try:
                line = import_tournament(store, record)
            except RecordError as exc:
                click.echo(f"error: {exc.message}", err=True)
                sys.exit(1)
        click.echo(line, err=True)


@tournament.command("standings")
@click.argument("tournament_id")
@click.option("--store", "store_url", default=None, help="Event store URL (default as `export`).")
@click.option("--json", "as_json", is_flag=True, help="standings and crosstable as JSON")
def standings_cmd(tournament_id: str, store_url: str | None, as_json: bool) -> None:
    """The standings of a tournament of the store, rebuilt from its events, with its rounds."""
    from domain.tournament import crosstable_json
    from records.errors import RecordError
    from records.tournament import read_tournament
    from server.cli.records import _open_store

    with _open_store(store_url) as store:
        try:
            _events, state = read_tournament(store, tournament_id)
        except RecordError as exc:
            click.echo(f"error: {exc.message}", err=True)
            sys.exit(1)
    if state is None:
        click.echo(f"error: there is no tournament {tournament_id!r} in this store", err=True)
        sys.exit(1)
    if as_json:
        out = {**summary_json(state), "crosstable": crosstable_json(state)}
        click.echo(json.dumps({"name": state.name, "finished": state.finished, **out}, indent=1))
        return
    status = (
        "finished" if state.finished else f"round {state.current_round} of {state.total_rounds}"
    )
    click.echo(f"{state.name} ({state.format}, {status})")
    _print_text(state)
