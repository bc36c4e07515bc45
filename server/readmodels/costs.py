"""The cost caps of the heavy jobs (docs/deploy.md § Security): what a job may ask for at most,
checked before its work starts, so that no request can make a worker build for minutes or grow
without bound. Over a cap is a structured `422 too_costly` naming the cap (the bytes of an
upload are `413 too_large`, server/entrypoints/records_http.py).

- A record (an upload, its check, `crapette import` is not bound): at most MAX_RECORD_GAMES
  games and MAX_RECORD_ACTIONS actions, counted once it is parsed and before it is verified.
  The longest matches played here have a few thousand actions; verifying 9,000 took ~1.5 s of
  CPU (a 2.4 MB record of ~20,000 took 14.7 s on the loaded loop before).
- A GIF: at most animate.MAX_FRAMES (300) frames drawn; a longer game keeps every n-th.
- The one-file HTML: a match of at most MAX_HTML_EVENTS events (600-760 bytes of file each:
  6-8 MB), refused before any work; a body over MAX_HTML_BYTES is refused after the build.
- An analysis: a match of at most MAX_ANALYSIS_EVENTS events, refused before any work.

Every job also runs in a worker bounded in memory (server/adapters/workers.py `MAX_RSS_MB`)."""

from __future__ import annotations

from typing import Any

from server.errors import TooCostlyError

MAX_RECORD_GAMES = 100
MAX_RECORD_ACTIONS = 20_000
MAX_HTML_EVENTS = 10_000
MAX_HTML_BYTES = 12 * 1024 * 1024
MAX_ANALYSIS_EVENTS = 10_000


def check_record(record: Any) -> None:
    """TooCostlyError for a parsed record over the caps (its form is checked later: anything
    not shaped as games of actions counts nothing here)."""
    games = record.get("games") if isinstance(record, dict) else None
    if not isinstance(games, list):
        return
    if len(games) > MAX_RECORD_GAMES:
        raise TooCostlyError(
            f"A record holds at most {MAX_RECORD_GAMES} games here, not {len(games)}.",
            limit={"games": MAX_RECORD_GAMES},
        )
    actions = sum(
        len(game["actions"])
        for game in games
        if isinstance(game, dict) and isinstance(game.get("actions"), list)
    )
    if actions > MAX_RECORD_ACTIONS:
        raise TooCostlyError(
            f"A record holds at most {MAX_RECORD_ACTIONS:,} actions here, not {actions:,}.",
            limit={"actions": MAX_RECORD_ACTIONS},
        )


def check_html(events: int) -> None:
    """TooCostlyError for the one-file HTML of a match of `events` events."""
    if events > MAX_HTML_EVENTS:
        raise TooCostlyError(
            f"The one-file replay is made for matches of at most {MAX_HTML_EVENTS:,} events; "
            f"this one has {events:,}.",
            limit={"events": MAX_HTML_EVENTS},
        )


def check_html_bytes(size: int) -> None:
    if size > MAX_HTML_BYTES:
        raise TooCostlyError(
            f"The one-file replay would be {size // (1024 * 1024)} MB; at most "
            f"{MAX_HTML_BYTES // (1024 * 1024)} MB are made here.",
            limit={"bytes": MAX_HTML_BYTES},
        )


def check_analysis(events: int) -> None:
    if events > MAX_ANALYSIS_EVENTS:
        raise TooCostlyError(
            f"Matches of at most {MAX_ANALYSIS_EVENTS:,} events are analysed here; this one has "
            f"{events:,}.",
            limit={"events": MAX_ANALYSIS_EVENTS},
        )
