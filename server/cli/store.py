"""`crapette store copy`: move a server's event store to another backend (SQLite → PostgreSQL).

Exit codes: 0 the target is a complete, checked copy; 1 the copy stopped or the check found a
difference; 2 a store cannot be opened. Every failure is one readable line on stderr."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from eventstore import EventStore

EXIT_DIFFERENT = 1
EXIT_UNAVAILABLE = 2


@click.group("store")
def store() -> None:
    """Work on event stores as a whole."""


def _open(url: str, role: str, must_exist: bool) -> EventStore:
    from eventstore import open_store

    scheme, _, rest = url.partition("://")
    if scheme == "sqlite" and must_exist and not Path(rest.split("?")[0]).exists():
        # Opening would create an empty store and copy nothing: say so instead.
        click.echo(f"error: there is no {role} store at {rest.split('?')[0]}", err=True)
        sys.exit(EXIT_UNAVAILABLE)
    try:
        return open_store(url)
    except Exception as exc:  # the store's own errors: name the URL, no traceback
        click.echo(f"error: cannot open the {role} store {url}: {exc}", err=True)
        sys.exit(EXIT_UNAVAILABLE)


@store.command("copy")
@click.option("--from", "source_url", required=True, help="Store to copy, e.g. sqlite:///x.db.")
@click.option("--to", "target_url", required=True, help="Store to fill, e.g. postgresql://…")
@click.option("--batch-size", default=500, show_default=True, type=click.IntRange(1, 100_000))
def copy_cmd(source_url: str, target_url: str, batch_size: int) -> None:
    """Copy every stream with its events' ids, versions and times, in global order, then check
    each stream's event count and digest. Stop it at any time and run it again: it resumes, and
    on a complete copy it writes nothing."""
    from eventstore import EventStoreError
    from eventstore.copy import compare_stores, copy_store

    bar_hidden = not sys.stderr.isatty()
    source = _open(source_url, "source", must_exist=True)
    try:
        target = _open(target_url, "target", must_exist=False)
        try:
            total = source.last_position()
            with click.progressbar(
                length=total, label="copying", file=sys.stderr, hidden=bar_hidden
            ) as bar:
                result = copy_store(source, target, batch_size=batch_size, progress=bar.update)
            click.echo(
                f"copied {result.copied} event(s); {result.already} were already there "
                f"({result.total} in the source)"
            )
            streams = len(source.list_streams())
            with click.progressbar(
                length=streams, label="checking", file=sys.stderr, hidden=bar_hidden
            ) as bar:
                comparison = compare_stores(source, target, progress=bar.update)
        except EventStoreError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(EXIT_DIFFERENT)
        finally:
            target.close()
    finally:
        source.close()
    for difference in comparison.differences[:20]:
        click.echo(f"different: {difference.stream}: {difference.problem}", err=True)
    if not comparison.identical:
        more = len(comparison.differences) - 20
        if more > 0:
            click.echo(f"... and {more} more stream(s)", err=True)
        click.echo(f"error: {len(comparison.differences)} stream(s) differ", err=True)
        sys.exit(EXIT_DIFFERENT)
    click.echo(
        f"checked {comparison.streams} stream(s), {comparison.events} event(s): "
        "every count and digest is the same"
    )
