"""`crapette selfplay`: bots play each other in-process through the event-sourced domain.

It is practice data, a demonstration and a soak test at once: every event is folded and the
rules' invariants are checked as the games go, and the command exits non-zero when one breaks.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import click

from domain import PRESETS, Action, Ruleset, View
from domain.bots import BOT_NAMES, Bot, make_bot
from domain.bots.arena import GameReport, InvariantError, MatchReport, derive_seed, play_match

DEFAULT_SEED = "5e1f"


def _bot_pair(text: str) -> tuple[str, str]:
    names = [part.strip() for part in text.split(",")]
    if len(names) != 2 or any(name not in BOT_NAMES for name in names):
        known = ", ".join(BOT_NAMES)
        raise click.BadParameter(f"two of {known}, comma-separated (e.g. sharp,steady)")
    return names[0], names[1]


def match_id_of(seed: str, preset: str, bots: tuple[str, str], match_number: int) -> str:
    """`selfplay-<seed>-<preset>-<bot A>-<bot B>-<n>`: two runs share ids only when they share
    seed, preset and bots (and then their matches are the same). A seed of more than 16 hex
    digits goes in by its hash, so the id stays one the server's URLs take (at most 80)."""
    tag = seed if len(seed) <= 16 else hashlib.sha256(seed.encode()).hexdigest()[:16]
    return f"selfplay-{tag}-{preset}-{bots[0]}-{bots[1]}-{match_number:04d}"


class _Named:
    """A bot under the player name a record shows: which bot, and which of the two it is
    (`steady bot (A)`), so that two bots of one strength are told apart."""

    def __init__(self, bot: Bot, label: str) -> None:
        self._bot = bot
        self.name = f"{bot.name} bot ({label})"

    def choose(self, view: View) -> Action | None:
        return self._bot.choose(view)

    def delay_hint_ms(self, action: Action) -> int:
        return self._bot.delay_hint_ms(action)


def _seed(text: str) -> str:
    try:
        int(text, 16)
    except ValueError:
        raise click.BadParameter(f"{text!r} is not hexadecimal") from None
    return text.lower()


class Tally:
    """The running summary of a run."""

    def __init__(self, bots: tuple[str, str]) -> None:
        self.bots = bots
        self.games = 0
        self.wins_by_seat: Counter[int] = Counter()
        self.wins_by_bot: Counter[str] = Counter()  # "A" / "B": the first / second bot named
        self.stalemates = 0
        self.actions = 0
        self.faults = 0
        self.calls: Counter[str] = Counter()
        self.points: Counter[str] = Counter()

    def add(self, game: GameReport) -> None:
        self.games += 1
        self.actions += game.actions
        self.faults += sum(game.faults.values())
        self.calls.update(game.calls)
        labels = tuple(name[-2] for name in game.bots)  # `steady bot (A)`: who sat where
        for seat in (0, 1):
            self.points[labels[seat]] += game.score[seat]
        if game.winner is None:
            self.stalemates += 1
        else:
            self.wins_by_seat[game.winner] += 1
            self.wins_by_bot[labels[game.winner]] += 1

    def summary(self, seconds: float) -> dict[str, Any]:
        a, b = self.bots
        # At a rotation table (docs/spec/rules.md §10) two more bots wait: C plays as A, D as B.
        kinds = {"A": a, "B": b, "C": a, "D": b}
        labels = ["A", "B"] + [x for x in "CD" if x in self.points or x in self.wins_by_bot]
        return {
            "games": self.games,
            "bots": {label: kinds[label] for label in labels},
            "wins_by_seat": {"0": self.wins_by_seat[0], "1": self.wins_by_seat[1]},
            "wins_by_bot": {f"{x}:{kinds[x]}": self.wins_by_bot[x] for x in labels},
            "points_by_bot": {f"{x}:{kinds[x]}": self.points[x] for x in labels},
            "stalemates": self.stalemates,
            "average_actions": round(self.actions / self.games, 1) if self.games else 0.0,
            "faults": self.faults,
            "calls": {"right": self.calls["right"], "wrong": self.calls["wrong"]},
            "seconds": round(seconds, 3),
            "games_per_second": round(self.games / seconds, 2) if seconds > 0 else 0.0,
        }


def _export(report: MatchReport, directory: Path) -> Path:
    """Write the match record with records' exporter (JSON form), after checking that
    the verifier, recomputing it from the deals and actions alone, agrees with it."""
    from records import export as exporting
    from records.errors import RecordError
    from records.verify import verify_record

    directory.mkdir(parents=True, exist_ok=True)
    try:
        record = exporting.record_from_events(report.events, public=False)
        verify_record(json.loads(json.dumps(record)))
    except RecordError as exc:
        raise InvariantError(f"{report.match_id}: its record does not verify: {exc}") from exc
    path = directory / f"{report.match_id}.json"
    path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return path


def run_selfplay(
    games: int,
    preset: str,
    bots: tuple[str, str],
    seed: str,
    export_dir: Path | None,
    progress: Any = None,
    single_games: bool = False,
) -> tuple[dict[str, Any], list[Path]]:
    """Play `games` games: matches follow each other and the bots swap seats each match.
    With `single_games` every game is a match of its own (so seats swap every game)."""
    ruleset = Ruleset.preset(preset)
    tally = Tally(bots)
    exported: list[Path] = []
    started = time.perf_counter()
    match_number = 0
    game_number = 0

    def seeds() -> Any:
        nonlocal game_number
        while True:
            yield derive_seed(seed, "game", game_number)
            game_number += 1

    seed_stream = seeds()
    while tally.games < games:
        swapped = match_number % 2 == 1
        names = (bots[1], bots[0]) if swapped else bots
        labels = ("B", "A") if swapped else ("A", "B")
        pair = (
            _Named(make_bot(names[0], seed=derive_seed(seed, "bot", match_number, 0)), labels[0]),
            _Named(make_bot(names[1], seed=derive_seed(seed, "bot", match_number, 1)), labels[1]),
        )
        waiting: tuple[_Named, ...] = ()
        if ruleset.rotation != "off":  # a table of four: two more bots wait for a seat
            waiting = tuple(
                _Named(make_bot(bots[i], seed=derive_seed(seed, "bot", match_number, 2 + i)), x)
                for i, x in enumerate("CD")
            )

        def on_game(game: GameReport) -> None:
            tally.add(game)
            if progress is not None:
                progress.update(1)

        report = play_match(
            ruleset,
            (pair[0], pair[1]),
            match_id_of(seed, preset, bots, match_number),
            seed_stream,
            1 if single_games else games - tally.games,
            on_game,
            waiting=waiting,
        )
        if export_dir is not None:
            exported.append(_export(report, export_dir))
        match_number += 1
    return tally.summary(time.perf_counter() - started), exported


def _print_summary(summary: dict[str, Any], preset: str) -> None:
    bots = summary["bots"]
    against = " against ".join(f"{kind} ({label})" for label, kind in bots.items())
    wins = "   ".join(f"{x} {k}: {summary['wins_by_bot'][f'{x}:{k}']}" for x, k in bots.items())
    points = "   ".join(f"{x}: {summary['points_by_bot'][f'{x}:{k}']}" for x, k in bots.items())
    out = [
        f"{summary['games']} games of {preset}: {against}",
        f"  wins by bot   {wins}   stalemates: {summary['stalemates']}",
        f"  wins by seat  0: {summary['wins_by_seat']['0']}   1: {summary['wins_by_seat']['1']}",
        f"  points        {points}",
        f"  actions/game  {summary['average_actions']}   faults: {summary['faults']}   calls: "
        f"{summary['calls']['right']} right, {summary['calls']['wrong']} wrong",
        f"  {summary['seconds']} s, {summary['games_per_second']} games/s",
    ]
    click.echo("\n".join(out))


@click.command("selfplay")
@click.option("--games", type=click.IntRange(min=1), default=10, show_default=True)
@click.option("--preset", type=click.Choice(sorted(PRESETS)), default="classic", show_default=True)
@click.option("--bots", default="steady,steady", show_default=True, help="two bot names: A,B")
@click.option("--seed", default=DEFAULT_SEED, help="hex (the deals derive from it)")
@click.option(
    "--export",
    "export_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="write each match record (crapette-record/1 JSON) into this directory",
)
@click.option(
    "--single-games",
    is_flag=True,
    help="make every game a match of its own, so the bots swap seats every game",
)
@click.option("--json", "as_json", is_flag=True, help="print the summary as JSON")
def selfplay(
    games: int,
    preset: str,
    bots: str,
    seed: str,
    export_dir: Path | None,
    single_games: bool,
    as_json: bool,
) -> None:
    """Bots play GAMES games against each other; a summary is printed at the end.

    Exits 1 if an invariant of the rules breaks (104 cards accounted for, every game ends,
    the stored events fold to the live state, every bot action accepted by the engine, every
    exported record verifies).
    """
    pair = _bot_pair(bots)
    hex_seed = _seed(seed)
    show_bar = sys.stderr.isatty() and not as_json
    try:
        if show_bar:
            with click.progressbar(length=games, label="selfplay", file=sys.stderr) as bar:
                summary, exported = run_selfplay(
                    games, preset, pair, hex_seed, export_dir, bar, single_games
                )
        else:
            summary, exported = run_selfplay(
                games, preset, pair, hex_seed, export_dir, None, single_games
            )
    except InvariantError as exc:
        click.echo(f"invariant broken: {exc}", err=True)
        sys.exit(1)
    if export_dir is not None:
        summary["exported"] = [str(path) for path in exported]
    if as_json:
        click.echo(json.dumps(summary, indent=1))
    else:
        _print_summary(summary, preset)
        if exported:
            click.echo(f"  {len(exported)} match records written to {export_dir}")
