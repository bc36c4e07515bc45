"""`crapette analyse RECORD`: how well a match was played (server/readmodels/judge.py,
docs/records.md § How well it was played). The record is verified first (as `crapette verify`),
then every decision is judged by the evaluator, a progress bar on stderr while it runs (on a
terminal only). Exit codes as `verify`'s: 0 judged, 1 the record does not hold, 2 not a record,
a bad option, or nothing to judge it with (no evaluator: the record may well hold)."""

from __future__ import annotations

import json
import sys

import click

from records.errors import RecordError
from server.cli.records import (
    EXIT_MALFORMED,
    _fail,
    _read_file,
    judged,
    ndjson_lines,
    tournament_record_in,
)

__all__ = ["analyse_cmd", "judged"]  # `judged` lives in records.py, which `verify --analysis` uses

DEPTH = click.Choice(["quick", "normal", "deep"])


@click.command("analyse")
@click.argument("file")
@click.option("--json", "as_json", is_flag=True, help="Print the analysis as JSON.")
@click.option("--depth", type=DEPTH, default="normal", show_default=True,
              help="How hard the evaluator looks: quick, normal or deep.")  # fmt: skip
@click.option("--seed", type=int, default=0, show_default=True, help="The evaluator's seed.")
def analyse_cmd(file: str, as_json: bool, depth: str, seed: int) -> None:
    """Judge every decision of a match record (JSON, text or a replay's HTML): each seat's win
    chance before and after each move and after the best move found, the judgements (best,
    good, inaccuracy, mistake, blunder) and each seat's accuracy per game and for the match."""
    from records.importer import parse_record_file
    from records.verify import verify_record
    from server.readmodels.analysis_text import judgement_lines

    text = _read_file(file)
    if tournament_record_in(text) is not None:
        raise click.UsageError("analyse takes a match record, not a tournament's")
    if ndjson_lines(text) is not None:
        raise click.UsageError("analyse takes one record; this file holds several (NDJSON)")
    try:
        record = parse_record_file(text)
        verified = verify_record(record)
        result = judged(record, depth, seed, verified)
    except RecordError as exc:
        _fail(exc)
        return
    except click.exceptions.Exit:
        raise
    except ImportError as exc:
        click.echo(f"error: no evaluator to analyse with: {exc}", err=True)
        sys.exit(EXIT_MALFORMED)
    except Exception as exc:  # a record that gets past the schema but trips the engine
        click.echo(f"error: cannot analyse this record: {type(exc).__name__}: {exc}", err=True)
        sys.exit(EXIT_MALFORMED)
    if as_json:
        click.echo(json.dumps(result, ensure_ascii=False))
        return
    click.echo(verified.summary)
    click.echo("\n".join(judgement_lines(result, verified.batches)))
