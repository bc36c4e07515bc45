"""The tournament record `crapette-tournament/1`: a tournament's events and the record of every
match it played, in one JSON file (docs/records.md, The tournament record).

`verify_tournament` trusts nothing in it: every event is decided again from the command that
would have caused it (so the pairings are the ones the rules pair), every match record is
verified by the match verifier, every reported result must be its match's own, and the standings
written in the file must be the ones the events and matches give.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from domain.errors import DomainError, quote
from domain.names import MAX_NAME, NameRefused
from domain.tournament import (
    MAX_TITLE,
    CreateTournament,
    FinishTournament,
    MatchForfeited,
    MatchReported,
    PairRound,
    PlayerRegistered,
    PlayerWithdrew,
    RecordNoShow,
    RegisterPlayer,
    ReportMatch,
    RoundPaired,
    TournamentCommand,
    TournamentCreated,
    TournamentError,
    TournamentEvent,
    TournamentFinished,
    TournamentState,
    WithdrawPlayer,
    decide_and_fold,
    event_from_payload,
    event_to_payload,
    evolve,
    standings,
)
from eventstore import EventStore, NewEvent, StreamNameError
from records.errors import MatchExistsError, MatchNotFoundError, RecordError
from records.errors import RecordFormatError as FormatError
from records.export import export_match
from records.fields import nickname
from records.importer import import_record
from records.streams import tournament_stream
from records.verify import verify_record

TOURNAMENT_FORMAT = "crapette-tournament/1"


class TournamentMismatchError(RecordError):
    """The tournament record says one thing, the rules or its matches another."""


class TournamentStreamError(RecordError):
    """A stored tournament stream the domain cannot read: no honest record can be written."""


def read_tournament(
    store: EventStore, tournament_id: str
) -> tuple[list[TournamentEvent], TournamentState | None]:
    """The stream `tournament-<id>`'s events and their fold (None: no such tournament). The
    server's own reader is `server.adapters.tournament_repo`; this one keeps nothing in memory."""
    try:
        stored = store.read(tournament_stream(tournament_id))
    except StreamNameError:
        return [], None
    events: list[TournamentEvent] = []
    state: TournamentState | None = None
    for recorded in stored:
        try:
            event = event_from_payload(recorded.type, dict(recorded.data))
            state = evolve(state, event)
        except (DomainError, ValueError) as exc:
            raise TournamentStreamError(
                f"event {recorded.version} of {tournament_stream(tournament_id)}: {exc}"
            ) from None
        events.append(event)
    return events, state


def is_tournament_record(data: object) -> bool:
    return isinstance(data, dict) and data.get("format") == TOURNAMENT_FORMAT


# ------------------------------------------------------------------------------ export


def tournament_record(
    events: list[TournamentEvent], state: TournamentState, matches: list[dict[str, Any]]
) -> dict[str, Any]:
    """The record of a tournament from its events and its matches' records. The director's
    token hash stays out: a record is for anyone to read."""
    shown = [replace(e, director="") if isinstance(e, TournamentCreated) else e for e in events]
    return {
        "format": TOURNAMENT_FORMAT,
        "tournament_id": state.tournament_id,
        "name": state.name,
        "finished": state.finished,
        "events": [_event_json(e) for e in shown],
        "matches": matches,
        "standings": [row.to_json() for row in standings(state)],
    }


def _event_json(event: TournamentEvent) -> dict[str, Any]:
    kind, data = event_to_payload(event)
    return {"type": kind, "data": data}


def export_tournament(store: EventStore, tournament_id: str) -> dict[str, Any]:
    """The record of tournament `tournament_id` in `store`, with the record of every match its
    tables played (a table forfeited without a match has none)."""
    events, state = read_tournament(store, tournament_id)
    if state is None:
        raise MatchNotFoundError(f"there is no tournament {quote(tournament_id)} in this store")
    matches = []
    for played in state.rounds:
        for table in played.tables:
            result = state.results.get(table.match_id)
            if result is not None and result.kind == "forfeit":
                continue
            try:
                matches.append(export_match(store, table.match_id))
            except MatchNotFoundError:
                if result is not None:  # reported, yet gone: no honest record can be written
                    raise
    return tournament_record(events, state, matches)


# ------------------------------------------------------------------------------ verify


@dataclass
class VerifiedTournament:
    state: TournamentState
    events: list[TournamentEvent]
    matches: dict[str, dict[str, Any]] = field(default_factory=dict)  # verified, by match id
    summary: str = ""


def verify_tournament(record: object) -> VerifiedTournament:
    """Recompute the whole tournament record; raise FormatError / TournamentMismatchError, or
    the match verifier's own error for a match record that does not hold."""
    data = _checked_shape(record)
    events = _events(data["events"])
    matches = _verified_matches(data["matches"])
    state = _replay(events, matches)
    _check_tables(state, matches)
    written = data.get("standings")
    computed = [row.to_json() for row in standings(state)]
    if written is not None and json.loads(json.dumps(written)) != computed:
        raise TournamentMismatchError(
            f"the standings written in the record are not the ones its matches give: it says "
            f"{_podium(written)}, the matches give {_podium(computed)}"
        )
    verified = VerifiedTournament(state, events, matches)
    verified.summary = _summary(state, matches)
    return verified


def _checked_shape(record: object) -> dict[str, Any]:
    if not is_tournament_record(record):
        raise FormatError(f"a tournament record is a JSON object with format {TOURNAMENT_FORMAT}")
    assert isinstance(record, dict)
    for key, kind in (("events", list), ("matches", list)):
        if not isinstance(record.get(key), kind):
            raise FormatError(f"not a valid {TOURNAMENT_FORMAT} record: {key} is not a list")
    standing = record.get("standings")
    if standing is not None and not isinstance(standing, list):
        raise FormatError(f"not a valid {TOURNAMENT_FORMAT} record: standings is not a list")
    return record


def _events(items: list[Any]) -> list[TournamentEvent]:
    events = []
    for number, item in enumerate(items, start=1):
        if not isinstance(item, dict) or not isinstance(item.get("type"), str):
            raise FormatError(f"event {number} of the record is not {{type, data}}")
        try:
            event = event_from_payload(item["type"], item.get("data"))  # type: ignore[arg-type]
        except DomainError as exc:
            raise FormatError(f"event {number} of the record: {exc}") from None
        _check_name(event, number)
        events.append(event)
    if not events or not isinstance(events[0], TournamentCreated):
        raise FormatError("a tournament record's events start with TournamentCreated")
    return events


def _check_name(event: TournamentEvent, number: int) -> None:
    """A player's name, and the tournament's, as the server would have taken them: by the
    domain's rules and RFC 8266's Nickname profile (`records.fields.nickname`, docs/protocol.md
    § Names); the domain's `decide` checks only the former."""
    if isinstance(event, PlayerRegistered):
        name, longest, what = event.name, MAX_NAME, "A name"
    elif isinstance(event, TournamentCreated):
        name, longest, what = event.name, MAX_TITLE, "A tournament's name"
    else:
        return
    try:
        taken = nickname(name, longest, what)
    except NameRefused as exc:
        raise FormatError(f"event {number} of the record: {exc.message}") from None
    if taken != name:
        raise FormatError(
            f"event {number} of the record: the name {quote(name)} is not as a server takes "
            f"it ({quote(taken)}: RFC 8266's Nickname profile)"
        )


def _command_for(event: TournamentEvent) -> TournamentCommand:
    """The command whose decision starts with `event`."""
    if isinstance(event, TournamentCreated):
        return CreateTournament(
            event.tournament_id,
            event.name,
            event.format,
            event.rounds,
            event.ruleset,
            event.at_ms,
            event.director,
        )
    if isinstance(event, PlayerRegistered):
        return RegisterPlayer(event.name, event.at_ms, event.bot)
    if isinstance(event, PlayerWithdrew):
        return WithdrawPlayer(event.name, event.at_ms)
    if isinstance(event, RoundPaired):
        return PairRound(event.at_ms)
    if isinstance(event, MatchReported):
        return ReportMatch(event.match_id, event.winner, event.totals, event.at_ms)
    if isinstance(event, MatchForfeited):
        if event.reason == "withdrew":
            raise TournamentMismatchError(
                f"{event.match_id}: a forfeit for a withdrawal follows the withdrawal or the "
                "pairing that caused it, never stands alone"
            )
        return RecordNoShow(event.match_id, event.absent, event.at_ms)
    assert isinstance(event, TournamentFinished)
    return FinishTournament(event.at_ms)


def _replay(events: list[TournamentEvent], matches: dict[str, dict[str, Any]]) -> TournamentState:
    """Decide each event again from its command; the record's events must be exactly those,
    and a reported result must be its match's own."""
    state: TournamentState | None = None
    i = 0
    while i < len(events):
        if isinstance(events[i], MatchReported):
            _check_result(events[i], matches)  # type: ignore[arg-type]
        command = _command_for(events[i])
        try:
            decided, after = decide_and_fold(state, command)
        except TournamentError as exc:
            raise TournamentMismatchError(
                f"event {i + 1} ({events[i].type}): the rules refuse it: {exc.message}"
            ) from None
        stated = events[i : i + len(decided)]
        if stated != decided:
            raise TournamentMismatchError(
                f"event {i + 1} ({events[i].type}): the record says "
                f"{_brief(stated)}, the rules say {_brief(decided)}"
            )
        state = after
        i += len(decided)
    assert state is not None
    return state


def _brief(events: list[TournamentEvent]) -> str:
    parts = []
    for event in events:
        if isinstance(event, RoundPaired):
            tables = ", ".join(" v ".join(t.players) for t in event.tables)
            byes = f"; bye {', '.join(event.byes)}" if event.byes else ""
            parts.append(f"round {event.round}: {tables}{byes}")
        else:
            parts.append(event.type)
    return "[" + "; ".join(parts) + "]" if parts else "nothing"


def _verified_matches(items: list[Any]) -> dict[str, dict[str, Any]]:
    matches: dict[str, dict[str, Any]] = {}
    for item in items:
        match = verify_record(item).record  # the match verifier: deals, actions, result
        if match["match_id"] in matches:
            raise TournamentMismatchError(f"match {match['match_id']} is in the record twice")
        matches[match["match_id"]] = match
    return matches


def _check_result(event: MatchReported, matches: dict[str, dict[str, Any]]) -> None:
    match = matches.get(event.match_id)
    if match is None:
        raise TournamentMismatchError(f"the result of {event.match_id} has no match record")
    outcome = match["result"]
    if not outcome["finished"]:
        raise TournamentMismatchError(f"{event.match_id} has a result but its match is not over")
    stated = (event.winner, list(event.totals))
    played = (outcome["winner"], list(outcome["totals"]))
    if stated != played:
        raise TournamentMismatchError(
            f"{event.match_id}: the tournament says seat {stated[0]} won, totals {stated[1]}; "
            f"the match says seat {played[0]} won, totals {played[1]}"
        )


def _check_tables(state: TournamentState, matches: dict[str, dict[str, Any]]) -> None:
    """Every match record is a table of the tournament, with its players in its seats, and no
    forfeited table has one."""
    for match_id, match in matches.items():
        found = state.pairing(match_id)
        if found is None:
            raise TournamentMismatchError(f"match {match_id} is no table of this tournament")
        if tuple(match["players"]) != found[1].players:
            raise TournamentMismatchError(
                f"match {match_id}: its players are {' v '.join(match['players'])}, the "
                f"pairing says {' v '.join(found[1].players)}"
            )
        result = state.results.get(match_id)
        if result is not None and result.kind == "forfeit":
            raise TournamentMismatchError(f"{match_id} was forfeited, yet has a match record")


def _podium(rows: list[Any]) -> str:
    top = [r for r in rows[:3] if isinstance(r, dict)]
    return ", ".join(f"{r.get('rank')}. {r.get('name')} {r.get('score')}" for r in top) or "none"


def _summary(state: TournamentState, matches: dict[str, dict[str, Any]]) -> str:
    rows = standings(state)
    leader = f"; first: {rows[0].name} ({rows[0].score:g})" if rows and state.rounds else ""
    status = "finished" if state.finished else "running"
    return (
        f"ok: tournament {state.tournament_id} ({state.format}, {status}): "
        f"{state.current_round} round(s), {len(state.entrants)} players, "
        f"{len(matches)} match(es) verified, standings hold{leader}"
    )


# ------------------------------------------------------------------------------ import


def import_tournament(store: EventStore, record: object) -> str:
    """Verify the record, store each match (as `crapette import` does) and then the tournament
    stream (without a desk: nobody directs an imported tournament); a summary line. Nothing is
    written when the record is not finished or the tournament or a match is there already."""
    verified = verify_tournament(record)
    tid = verified.state.tournament_id
    if not verified.state.finished:
        # A running tournament is run by the server that holds it; here nobody could direct
        # it (it has no desk), and its open tables would never be played.
        raise TournamentMismatchError(
            f"tournament {tid} is not finished: only a finished one is imported"
        )
    if store.stream_version(tournament_stream(tid)):
        raise MatchExistsError(f"there is already a tournament {quote(tid)} here", match_id=tid)
    for match_id in verified.matches:
        if store.stream_version(f"match-{match_id}") or store.stream_version(f"table-{match_id}"):
            raise MatchExistsError(
                f"there is already a match {quote(match_id)} here", match_id=match_id
            )
    for match_id, match in verified.matches.items():
        # Its own id, of a tournament's table form: the tournament it is stored with names it.
        import_record(store, match, match_id=match_id, tournament_table=True)
    batch = []
    for index, event in enumerate(verified.events):
        kind, data = event_to_payload(event)
        batch.append(NewEvent(kind, data, {"imported": True}, f"{tid}/import/{index}"))
    store.append(tournament_stream(tid), batch, expected_version=0)
    return f"imported {verified.summary.removeprefix('ok: ')}"
