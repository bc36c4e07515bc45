"""Where a match, its table and a tournament live in the event store: the stream names, and the
form of a match id. The server's repositories and the record importer both write these streams
(docs/records.md § Imported once, docs/architecture.md § Records and bench)."""

from __future__ import annotations

import re

# The two streams of a match in the store: the domain's events, and the lobby's facts.
MATCH_PREFIX = "match-"
TABLE_PREFIX = "table-"
# A tournament's events, and its desk (the seats and tables it opened).
TOURNAMENT_PREFIX = "tournament-"
DESK_PREFIX = "desk-"

# Server-made ids are "m-" + 10 hex digits; imported records may bring their own.
MATCH_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,79}\Z")


def table_stream(match_id: str) -> str:
    return f"{TABLE_PREFIX}{match_id}"


def match_stream(match_id: str) -> str:
    return f"{MATCH_PREFIX}{match_id}"


def tournament_stream(tournament_id: str) -> str:
    return f"{TOURNAMENT_PREFIX}{tournament_id}"


def desk_stream(tournament_id: str) -> str:
    return f"{DESK_PREFIX}{tournament_id}"
