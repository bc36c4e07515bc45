"""`crapette export`, `crapette import` and `crapette verify`: match records on the command line.

Exit codes: 0 the record holds (or was written); 1 the record and the engine disagree (or the
match is missing / already there); 2 the file is not a record at all. Every failure is one
readable line on stderr, never a traceback.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import click

from eventstore import EventStore
from records.errors import RecordError, RecordFormatError

if TYPE_CHECKING:
    from records.verify import Verified

EXIT_MISMATCH = 1
EXIT_MALFORMED = 2


def default_store_url() -> str:
    """`CRAPETTE_STORE` if set, else the store `crapette serve` uses by default (the SQLite file
    `data/crapette.sqlite3` under the current directory, see server/cli/serve.py)."""
    url = os.environ.get("CRAPETTE_STORE")
    if url:
        return url
    return "sqlite:///" + os.path.abspath(os.path.join("data", "crapette.sqlite3"))


_STORE_HELP = "Event store URL (default: $CRAPETTE_STORE, else the `crapette serve` default)."


def _fail(error: RecordError) -> None:
    code = EXIT_MALFORMED if isinstance(error, RecordFormatError) else EXIT_MISMATCH
    click.echo(f"error: {error.message}", err=True)
    sys.exit(code)


@contextmanager
def _open_store(url: str | None, must_exist: bool = True) -> Iterator[EventStore]:
    from eventstore import open_store

    url = url or default_store_url()
    scheme, _, rest = url.partition("://")
    path = Path(rest.split("?")[0])
    if scheme == "sqlite" and must_exist and not path.exists():
        # Opening would create an empty store: say there is none instead.
        click.echo(f"error: there is no event store at {path} (give --store URL)", err=True)
        sys.exit(EXIT_MISMATCH)
    if scheme == "sqlite":
        path.parent.mkdir(parents=True, exist_ok=True)
    try:
        store = open_store(url)
    except Exception as exc:  # the store's own errors: say which URL, not a traceback
        click.echo(f"error: cannot open the event store {url}: {exc}", err=True)
        sys.exit(EXIT_MISMATCH)
    try:
        yield store
    finally:
        close = getattr(store, "close", None)
        if close is not None:
            close()


def _read_file(path: str) -> str:
    try:
        if path == "-":
            return sys.stdin.read()
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        click.echo(f"error: cannot read {path}: {exc}", err=True)
        sys.exit(EXIT_MALFORMED)


def _parse_since(text: str | None) -> int | None:
    if text is None:
        return None
    from server.readmodels.stats import since_ms

    try:
        return since_ms(text)
    except ValueError:
        message = f"{text!r} is not a date like 2026-11-29 or 2026-11-29T18:00"
        raise click.BadParameter(message) from None


# The evaluator's depth of `export --analysis` and `verify --analysis`.
_depth_option = click.option(
    "--depth",
    type=click.Choice(["quick", "normal", "deep"]),
    default="quick",
    show_default=True,
    help="With --analysis only: how hard the evaluator looks.",
)


@click.command("export")
@click.argument("match_id", required=False)
@click.option("--format", "fmt", type=click.Choice(["json", "text", "html"]), default="json")
@click.option("--store", "store_url", default=None, help=_STORE_HELP)
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None)
@click.option("--all", "everything", is_flag=True, help="Every match, as NDJSON (one per line).")
@click.option("--since", default=None, help="With --all: matches started on or after this date.")
@click.option(
    "--tournament",
    "tournament_id",
    default=None,
    help="The tournament record of this tournament: its events and every match record (JSON).",
)
@click.option(
    "--analysis",
    "with_analysis",
    is_flag=True,
    help="With --format html: build the match's analysis when none is kept, and embed it "
    "(one already built is embedded without this).",
)
@_depth_option
def export_cmd(
    match_id: str | None,
    fmt: str,
    store_url: str | None,
    output: str | None,
    everything: bool,
    since: str | None,
    tournament_id: str | None,
    with_analysis: bool,
    depth: str,
) -> None:
    """Write the record of MATCH_ID (or of every match with --all) as JSON or text, or the
    replay of MATCH_ID as one HTML file that opens offline in any browser (--format html)."""
    from records.export import export_all, export_match
    from records.text import to_text

    if tournament_id is not None:
        if everything or match_id is not None or since is not None or fmt != "json":
            raise click.UsageError("--tournament goes alone (a tournament record is JSON)")
        _export_tournament(store_url, tournament_id, output)
        return
    if everything == (match_id is not None):
        raise click.UsageError("give either a MATCH_ID, --all or --tournament ID")
    if since is not None and not everything:
        raise click.UsageError("--since goes with --all")
    if fmt == "html" and everything:
        raise click.UsageError("--format html writes one match's replay: give a MATCH_ID")
    if with_analysis and fmt != "html":
        raise click.UsageError("--analysis goes with --format html")
    since_ms = _parse_since(since)
    out: IO[str]
    with _open_store(store_url) as store, _output(output) as out:
        try:
            if everything:
                _export_all(store, since_ms, out, export_all)
                return
            assert match_id is not None
            if fmt == "html":
                url = store_url or default_store_url()
                analyse = depth if with_analysis else None
                out.write(_html_file(store, match_id, analysis_dir_of(url), analyse))
                return
            record = export_match(store, match_id)
        except RecordError as exc:
            _fail(exc)
            return
        except Exception as exc:  # the store's errors and the like: one line, never a traceback
            click.echo(f"error: cannot export: {type(exc).__name__}: {exc}", err=True)
            sys.exit(EXIT_MISMATCH)
        if fmt == "json":
            out.write(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
        else:
            out.write(to_text(record))


def analysis_dir_of(store_url: str) -> str | None:
    """Where `crapette serve` keeps the analyses of this store (server/cli/serve.py)."""
    from server.cli.serve import DEFAULT_DATA_DIR, analysis_dir

    return analysis_dir(store_url, DEFAULT_DATA_DIR)


def _html_file(store: EventStore, match_id: str, cache_dir: str | None, analyse: str | None) -> str:
    """The replay file of a match of the store (a missing one: the record's own error), with
    its analysis if one is kept in `cache_dir` or built at depth `analyse`."""
    from records.errors import MatchNotFoundError
    from server.errors import MatchRunningError, NotFoundError
    from server.readmodels.share.build import html_file

    try:
        return html_file(store, match_id, None, None, cache_dir=cache_dir, analyse=analyse)
    except NotFoundError:
        raise MatchNotFoundError(f"there is no match {match_id!r} in this store") from None
    except MatchRunningError:
        click.echo(f"error: match {match_id!r} is still in play: it has no analysis", err=True)
        sys.exit(EXIT_MISMATCH)


def _export_tournament(store_url: str | None, tournament_id: str, output: str | None) -> None:
    from records.tournament import export_tournament

    with _open_store(store_url) as store:
        try:
            record = export_tournament(store, tournament_id)
        except RecordError as exc:
            _fail(exc)
            return
        except Exception as exc:  # the store's errors and the like: one line, never a traceback
            click.echo(f"error: cannot export: {type(exc).__name__}: {exc}", err=True)
            sys.exit(EXIT_MISMATCH)
    with _output(output) as out:
        out.write(json.dumps(record, indent=1, ensure_ascii=False) + "\n")


def tournament_record_in(text: str) -> dict[str, Any] | None:
    """The tournament record a file holds (`crapette-tournament/1` JSON), else None."""
    from records.tournament import is_tournament_record

    stripped = text.lstrip("\ufeff \t\r\n")
    if not stripped.startswith("{"):
        return None
    try:
        data = json.loads(stripped)
    except (ValueError, RecursionError):
        return None
    return data if is_tournament_record(data) else None


def _tournament_file(text: str, handle: Any) -> bool:
    """Run `handle(record)` if `text` is a tournament record and print its line; whether it was
    one. A failure is one line on stderr and the exit codes of a match record."""
    record = tournament_record_in(text)
    if record is None:
        return False
    try:
        line = handle(record)
    except RecordError as exc:
        _fail(exc)
        return True
    except Exception as exc:  # as for a match record: a readable line, never a traceback
        click.echo(f"error: cannot read this tournament: {type(exc).__name__}: {exc}", err=True)
        sys.exit(EXIT_MALFORMED)
    click.echo(line)
    return True


@contextmanager
def _output(path: str | None) -> Iterator[IO[str]]:
    if path is None:
        yield sys.stdout
        return
    with open(path, "w", encoding="utf-8") as handle:
        yield handle


def _export_all(store: EventStore, since_ms: int | None, out: IO[str], export_all: Any) -> None:
    """NDJSON to `out`; a progress bar on stderr only when stderr is a terminal."""
    items = export_all(store, since_ms)
    total = next(items)  # the first item is the number of matches to go through
    written = 0
    with click.progressbar(
        length=total, label="exporting", file=sys.stderr, hidden=not sys.stderr.isatty()
    ) as bar:
        for item in items:
            bar.update(1)
            if isinstance(item, RecordError):
                click.echo(f"\nwarning: skipped {item.message}", err=True)
            elif item is not None:
                out.write(json.dumps(item, ensure_ascii=False) + "\n")
                written += 1
    if sys.stderr.isatty():
        click.echo(f"{written} match(es) exported", err=True)


@click.command("import")
@click.argument("file")
@click.option("--store", "store_url", default=None, help=_STORE_HELP)
@click.option("--id", "new_id", default=None, help="Store it under this match id instead.")
def import_cmd(file: str, store_url: str | None, new_id: str | None) -> None:
    """Verify a record (JSON or text) and store it as a match that replays like any other.
    FILE may also be NDJSON, one record per line as `export --all` writes it: each is imported
    on its own, and the records that failed are listed at the end."""
    from records.importer import parse_record_file, store_record

    text = _read_file(file)
    if tournament_record_in(text) is not None:
        from records.tournament import import_tournament

        if new_id is not None:
            raise click.UsageError("--id names a match; a tournament record keeps its ids")
        with _open_store(store_url, must_exist=False) as store:
            _tournament_file(text, lambda record: import_tournament(store, record))
        return
    lines = ndjson_lines(text)
    if lines is not None and new_id is not None:
        raise click.UsageError("--id names one match; this file holds several records")
    with _open_store(store_url, must_exist=False) as store:
        if lines is not None:
            _each_record(lines, "importing", lambda record: store_record(store, record))
            return
        try:
            record = parse_record_file(text)
            summary = store_record(store, record, match_id=new_id).summary
        except RecordError as exc:
            _fail(exc)
            return
        except Exception as exc:  # as in verify: a readable line, never a traceback
            click.echo(f"error: cannot import this record: {type(exc).__name__}: {exc}", err=True)
            sys.exit(EXIT_MALFORMED)
    click.echo(summary)


@click.command("verify")
@click.argument("file")
@click.option(
    "--analysis",
    "with_analysis",
    is_flag=True,
    help="Then recompute the finished games' analysis: faults (called or missed), calls, "
    "figures, and judge every decision (as `crapette analyse`).",
)
@_depth_option
@click.option(
    "--seed", type=int, default=0, show_default=True, help="With --analysis only: its seed."
)
def verify_cmd(file: str, with_analysis: bool, depth: str, seed: int) -> None:
    """Recompute every decision of a record from its deal and actions (exit 0 when it holds).
    FILE may also be NDJSON, one record per line: each is verified, failures listed at the end;
    or a tournament record: its pairings, every match and the standings are checked.
    --depth and --seed apply with --analysis (and are ignored without it); a failure of the
    analysis after the record held exits 2 with one line."""
    from records.importer import parse_record_file
    from records.verify import verify_record

    text = _read_file(file)
    if tournament_record_in(text) is not None:
        from records.tournament import verify_tournament

        if with_analysis:
            raise click.UsageError("--analysis goes with a match record")
        _tournament_file(text, lambda record: verify_tournament(record).summary)
        return
    lines = ndjson_lines(text)
    if lines is not None:
        if with_analysis:
            raise click.UsageError("--analysis goes with one record; this file holds several")
        _each_record(lines, "verifying", lambda record: verify_record(record).summary)
        return
    try:
        record = parse_record_file(text)
        result = verify_record(record)
    except RecordError as exc:
        _fail(exc)
        return
    except Exception as exc:  # a record that gets past the schema but trips the engine
        click.echo(f"error: cannot verify this record: {type(exc).__name__}: {exc}", err=True)
        sys.exit(EXIT_MALFORMED)
    click.echo(result.summary)
    if with_analysis:
        from server.readmodels.analysis_text import analysis_lines, judgement_lines

        click.echo("\n".join(analysis_lines(result.batches)))
        try:
            judgements = judged(record, depth, seed, result)
        except ImportError as exc:
            click.echo(f"error: no evaluator to judge the moves with: {exc}", err=True)
            sys.exit(EXIT_MALFORMED)
        except Exception as exc:  # as `analyse`: a readable line, never a traceback
            click.echo(f"error: cannot analyse this record: {type(exc).__name__}: {exc}", err=True)
            sys.exit(EXIT_MALFORMED)
        click.echo("\n".join(judgement_lines(judgements, result.batches)))


def ndjson_lines(text: str) -> list[tuple[int, str]] | None:
    """The (line number, line) of each record if `text` is NDJSON: more than one non-blank line,
    the first a whole JSON object by itself (a pretty-printed record's first line is `{`)."""
    lines = [
        (number, line)
        for number, line in enumerate(text.lstrip("\ufeff").splitlines(), start=1)
        if line.strip()
    ]
    if len(lines) < 2 or not lines[0][1].lstrip().startswith("{"):
        return None
    try:
        first = json.loads(lines[0][1])
    except ValueError:
        return None
    return lines if isinstance(first, dict) else None


def _each_record(lines: list[tuple[int, str]], label: str, handle: Any) -> None:
    """Parse and `handle` each line's record, with a progress bar on a terminal; then a summary,
    and every record that failed with its line, match id and reason. Exit 0 only if none did."""
    from records.importer import Imported, parse_record_file

    failures: list[tuple[int, str, str, int]] = []  # line, match id, message, exit code
    renamed: list[Imported] = []  # imported under an id derived from a server's own
    with click.progressbar(
        lines, label=label, file=sys.stderr, hidden=not sys.stderr.isatty()
    ) as bar:
        for number, line in bar:
            match_id = _match_id_of(line)
            try:
                outcome = handle(parse_record_file(line))
                if isinstance(outcome, Imported) and outcome.renamed:
                    renamed.append(outcome)
            except RecordError as exc:
                code = EXIT_MALFORMED if isinstance(exc, RecordFormatError) else EXIT_MISMATCH
                failures.append((number, match_id, exc.message, code))
            except Exception as exc:  # the engine or the store tripped: one line, go on
                failures.append((number, match_id, f"{type(exc).__name__}: {exc}", EXIT_MALFORMED))
    done = "imported" if label == "importing" else "verified"
    click.echo(f"{len(lines) - len(failures)} of {len(lines)} record(s) {done}")
    if renamed:
        click.echo(
            f"{len(renamed)} of them under a new id (their own is of a server's own form, "
            "m- and 10 hex digits, which this server may give a match of its own):"
        )
        for item in renamed:
            click.echo(f"  {item.record_id} -> {item.match_id}")
    if not failures:
        return
    click.echo(f"{len(failures)} record(s) failed:", err=True)
    for number, match_id, message, _code in failures:
        click.echo(f"  line {number} ({match_id}): {message}", err=True)
    sys.exit(max(code for *_rest, code in failures))


def _match_id_of(line: str) -> str:
    """The line's match id for the failure list, if it can be read at all."""
    try:
        value = json.loads(line)
    except ValueError:
        return "not JSON"
    match_id = value.get("match_id") if isinstance(value, dict) else None
    return match_id[:80] if isinstance(match_id, str) else "no match id"


def judged(
    record: dict[str, Any], depth: str, seed: int, verified: Verified | None = None
) -> dict[str, object]:
    """`analyse_record` (of a record verified already: `verified`), with a progress bar on
    stderr when stderr is a terminal: what `crapette analyse` and `verify --analysis` print."""
    from server.readmodels.judge import analyse_record

    with click.progressbar(
        length=1, label="analysing", file=sys.stderr, hidden=not sys.stderr.isatty()
    ) as bar:

        def progress(done: int, total: int) -> None:
            bar.length = total
            bar.update(done - bar.pos)

        result: dict[str, object] = analyse_record(
            record, depth=depth, seed=seed, progress=progress, verified=verified
        )
    return result
