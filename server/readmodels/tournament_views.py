"""A tournament as its pages see it (docs/protocol.md § Tournaments, `format_version` 1): the
players, every round's tables with their results, the standings with their tie-breaks and the
crosstable, all rebuilt from the folded state on each request, never stored. A table still in
play shows its match's score so far when this process holds the match."""

from __future__ import annotations

from domain import tournament as tm
from server.adapters.matches import MatchRepository
from server.adapters.tournament_repo import TournamentEntry
from server.model.tables import opened_by
from server.wire.payloads import JsonObject

FORMAT_VERSION = 1


def status_of(state: tm.TournamentState) -> str:
    if state.finished:
        return "finished"
    return "playing" if state.started else "registering"


def tournament_json(entry: TournamentEntry, matches: MatchRepository) -> JsonObject:
    state = entry.state
    return {
        "format_version": FORMAT_VERSION,
        "tournament_id": state.tournament_id,
        "name": state.name,
        "format": state.format,
        "status": status_of(state),
        "rounds_planned": state.planned_rounds,
        "rounds_total": state.total_rounds,
        "current_round": state.current_round,
        "ruleset": state.ruleset.to_json(),
        "created_at_ms": state.created_at_ms,
        "finished_at_ms": state.finished_at_ms,
        "version": entry.version,
        "finish_requested": entry.desk.finish_requested,
        "players": [
            {
                "name": e.name,
                "number": e.number,
                "bot": e.bot,
                "withdrawn": e.withdrawn,
                "claimed": e.bot is None and e.name in entry.desk.claims,
            }
            for e in state.entrants
        ],
        "rounds": [_round_json(state, played, matches) for played in state.rounds],
        "standings": tm.crosstable_json(state),
    }


def _round_json(
    state: tm.TournamentState, played: tm.Round, matches: MatchRepository
) -> JsonObject:
    return {
        "round": played.number,
        "byes": list(played.byes),
        "tables": [_table_json(state, table, matches) for table in played.tables],
    }


def _table_json(
    state: tm.TournamentState, table: tm.Pairing, matches: MatchRepository
) -> JsonObject:
    result = state.results.get(table.match_id)
    live: list[int] | None = None
    if result is None and matches.loaded(table.match_id):
        match = matches.get(table.match_id)
        # Only a table the desk opened shows its totals (server/services/tournaments.py).
        if (
            match is not None
            and match.state is not None
            and opened_by(match.table, state.tournament_id)
        ):
            live = list(match.state.totals)
    return {
        "table": table.table,
        "match_id": table.match_id,
        "players": list(table.players),
        "result": None
        if result is None
        else {
            "kind": result.kind,
            "winner": result.winner,
            "totals": list(result.totals),
            "absent": list(result.absent),
        },
        "live_totals": live,
        "table_url": f"/table/{table.match_id}",
    }


def summary_json(entry: TournamentEntry) -> JsonObject:
    """A tournament's line in the list of tournaments."""
    state = entry.state
    return {
        "tournament_id": state.tournament_id,
        "name": state.name,
        "format": state.format,
        "status": status_of(state),
        "players": len(state.entrants),
        "current_round": state.current_round,
        "rounds_total": state.total_rounds,
        "created_at_ms": state.created_at_ms,
        "url": f"/tournament/{state.tournament_id}",
    }
