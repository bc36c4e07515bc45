"""`crapette stats`: every player's games, wins, points, faults and calls over the store.

Names are free text, so one name is one player (see server/readmodels/stats.py). A progress bar goes
to stderr while the matches are read, only on a terminal and never with --json.
"""

from __future__ import annotations

import json
import sys
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any

import click

from server.cli.records import _STORE_HELP, _open_store, _parse_since

if TYPE_CHECKING:
    from server.readmodels.stats import PlayerStats


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


COLUMNS = (
    ("player", lambda s: s.name),
    ("matches", lambda s: str(s.matches)),
    ("games", lambda s: str(s.games)),
    ("wins", lambda s: str(s.wins)),
    ("points", lambda s: str(s.points)),
    ("faults/100", lambda s: _number(s.faults_per_100)),
    ("calls right", lambda s: _percent(s.call_accuracy)),
    ("missed calls", lambda s: str(s.missed_calls)),
)


def table_text(players: list[PlayerStats]) -> str:
    """The players as an aligned table (a name cut to 24 characters)."""
    rows = [[title for title, _ in COLUMNS]]
    rows += [[cell(stats)[:24] for _, cell in COLUMNS] for stats in players]
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    lines = []
    for row in rows:
        cells = [row[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


class _Bar:
    """A click progress bar made once the number of matches is known (the first call)."""

    def __init__(self, stack: ExitStack, shown: bool) -> None:
        self.stack, self.shown = stack, shown
        self.bar: Any = None

    def __call__(self, step: int) -> None:
        if not self.shown:
            return
        if self.bar is None:
            self.bar = self.stack.enter_context(
                click.progressbar(length=step, label="reading matches", file=sys.stderr)
            )
            return
        self.bar.update(step)


@click.command("stats")
@click.argument("names", nargs=-1)
@click.option("--since", default=None, help="Only matches started on or after this date.")
@click.option("--store", "store_url", default=None, help=_STORE_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print JSON (one object per player).")
def stats_cmd(
    names: tuple[str, ...], since: str | None, store_url: str | None, as_json: bool
) -> None:
    """Games, wins, points, faults per 100 actions, call accuracy and missed calls of every
    player in the store (or of the NAMES given). A name is one player, as typed."""
    from server.readmodels.stats import StatsIndex

    since_ms = _parse_since(since)
    with _open_store(store_url) as store, ExitStack() as stack:
        bar = _Bar(stack, sys.stderr.isatty() and not as_json)
        try:
            players = StatsIndex().players(store, since_ms, progress=bar)
        except Exception as exc:  # the store's errors: one line, never a traceback
            click.echo(f"error: cannot read the store: {type(exc).__name__}: {exc}", err=True)
            sys.exit(1)
    chosen = [players[n] for n in names if n in players] if names else list(players.values())
    unknown = [n for n in names if n not in players]
    if as_json:
        click.echo(json.dumps({"players": [p.to_json() for p in chosen]}, indent=1))
    elif chosen:
        click.echo(table_text(chosen))
    for name in unknown:
        click.echo(f"warning: nobody called {name!r} played here", err=True)
    if not chosen and not as_json:
        click.echo("no player found", err=True)
