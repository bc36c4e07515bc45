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

# The match ids a server mints for itself, which an import may not take (docs/records.md
# § Imported once): a table of the lobby, a rematch or a practice table is "m-" and 10 hex
# digits (server.model.tables.new_match_id); a tournament's table is "<tournament id>-r<round>-
# t<table>" (domain.tournament.decide.match_id_for, a tournament id being domain.tournament's
# ID_PATTERN), predictable from the tournament's page: stored first by an import, it would be
# the match the tournament's desk finds when it opens that table (issue 38).
SERVER_MATCH_ID = re.compile(r"m-[0-9a-f]{10}\Z")
TOURNAMENT_TABLE_ID = re.compile(r"([A-Za-z0-9][A-Za-z0-9_-]{0,39})-r([0-9]+)-t([0-9]+)\Z")
RESERVED_FORMS = {
    "server": "m- and 10 hex digits: the server's own tables",
    "tournament": "<tournament id>-r<round>-t<table>: a tournament's tables",
}


def reserved_form(match_id: str) -> str | None:
    """Which of RESERVED_FORMS `match_id` is of ("server", "tournament"), or None."""
    if SERVER_MATCH_ID.match(match_id):
        return "server"
    if TOURNAMENT_TABLE_ID.match(match_id):
        return "tournament"
    return None


def unreserved_id(match_id: str) -> str:
    """An id like `match_id` of no reserved form: `x-` for a server's own, dots for a
    tournament's (`t-1a2b3c4d.r1.t2`)."""
    table = TOURNAMENT_TABLE_ID.match(match_id)
    if table is not None:
        return f"{table.group(1)}.r{table.group(2)}.t{table.group(3)}"
    if SERVER_MATCH_ID.match(match_id):
        return "x-" + match_id[2:]
    return match_id


def table_stream(match_id: str) -> str:
    return f"{TABLE_PREFIX}{match_id}"


def match_stream(match_id: str) -> str:
    return f"{MATCH_PREFIX}{match_id}"


def tournament_stream(tournament_id: str) -> str:
    return f"{TOURNAMENT_PREFIX}{tournament_id}"


def desk_stream(tournament_id: str) -> str:
    return f"{DESK_PREFIX}{tournament_id}"
