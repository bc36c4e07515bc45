"""A match stream → its `crapette-record/1` record.

The stream holds only the domain's events; the record holds the players' actions. To split the
events into actions without trusting any storage detail, each action is found by asking the engine:
the candidate action (read off the batch's first event) must `decide` into exactly the events that
follow in the stream. A stream the engine cannot explain is refused rather than misdescribed.

A match that is not finished is exported with public information only: the running game's seed
and packs stay out (its commitment is in), like a spectator sees it. Finished games of a live match
have had their seeds revealed, so they are complete.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

import domain
from domain import (
    Act,
    GameStarted,
    MatchStarted,
    MatchWon,
    PlayerLeftQueue,
    PlayerQueued,
    RulesError,
    SeatsRotated,
)
from domain.deal import packs_from_seed
from domain.errors import quote
from eventstore import EventStore, StreamNameError
from records.decisions import action_of, describe
from records.errors import MatchNotFoundError, RecordError
from records.schema import ALGORITHM, FORMAT, dump_record, load_record
from records.streams import MATCH_PREFIX, match_stream


class ExportError(RecordError):
    """The stream is not a match the engine can explain (so no honest record can be written)."""


def export_match(
    store: EventStore, match_id: str, public: bool | None = None, upto: int | None = None
) -> dict[str, Any]:
    """The record of the match `match_id` in `store` (see `record_from_events`); `upto`: of
    its first `upto` events only (default: all)."""
    try:
        stored = store.read(match_stream(match_id), 1, upto)
    except StreamNameError:  # an id from a URL that no stream can have
        stored = []
    if not stored:
        raise MatchNotFoundError(f"there is no match {quote(match_id)} in this store")
    return record_from_stored(stored, public)


def record_from_stored(stored: Sequence[Any], public: bool | None = None) -> dict[str, Any]:
    """Record from the store's RecordedEvents (`.type`, `.data`)."""
    events = []
    for recorded in stored:
        try:
            events.append(domain.event_from_payload(recorded.type, recorded.data))
        except domain.DomainError as exc:
            raise ExportError(f"event {recorded.version} of the stream: {exc}") from None
    return record_from_events(events, public)


def record_from_events(events: Sequence[Any], public: bool | None = None) -> dict[str, Any]:
    """The record of a match from its domain events. `public` (default: while the match is not
    finished) leaves out the running game's seed, packs and faults."""
    if not events or not isinstance(events[0], MatchStarted):
        raise ExportError("a match stream starts with MatchStarted")
    started: MatchStarted = events[0]
    state = domain.evolve(None, started)
    ruleset = started.ruleset.to_record_json()
    preset = ruleset.pop("preset", None)
    record: dict[str, Any] = {
        "format": FORMAT,
        "match_id": started.match_id,
        "preset": preset,
        "ruleset": ruleset,
        "players": list(started.players),
        "started_at_ms": started.at_ms,
        "live": False,
        "result": {"finished": False, "winner": None, "totals": [0, 0]},
        "games": [],
    }
    deals: list[GameStarted] = []
    number_of: dict[int, int] = {}  # stream index of an action's first event → action number
    i = 1
    while i < len(events):
        event = events[i]
        if isinstance(event, GameStarted):
            deals.append(event)
            record["games"].append(_game_entry(event, state))
            number_of = {}
            state = domain.evolve(state, event)
            i += 1
            continue
        if isinstance(event, PlayerQueued | PlayerLeftQueue) and state.session is not None:
            record.setdefault("queue", []).append(_queue_entry(event, record["games"]))
            state = domain.evolve(state, event)
            i += 1
            continue
        abandoned = isinstance(event, MatchWon) and event.abandoned_by is not None
        if (isinstance(event, MatchWon) and not abandoned) or not deals:
            raise ExportError(f"event {i + 1} ({type(event).__name__}) follows no action")
        action, batch, after = _explain(state, events, i)
        game = record["games"][-1]
        entry = _entry(action, batch, game, number_of)
        number_of[i] = len(game["actions"]) + 1
        game["actions"].append(entry)
        for done in batch:
            if isinstance(done, SeatsRotated):
                game["seat_change"] = seat_change_json(done)
        state = after
        i += len(batch)
    record["result"] = match_result_json(state)
    if public is None:
        public = not state.finished
    running = state.game is not None and not state.game.over
    if public and running:
        record["live"] = True
        deal = deals[-1]
        record["games"][-1]["deal"] = {"algorithm": ALGORITHM, "commitment": deal.commitment}
        if deal.seed is None:
            record["games"][-1]["deal"] = {}
        # Whether an action of the running game broke priority is for the opponent to spot: a
        # player who fetched the record must not learn it (a call's own verdict stays).
        for entry in record["games"][-1]["actions"]:
            if entry.get("do") != "call":
                entry.pop("fault", None)
                entry.pop("rule", None)
    return dump_record(load_record(record))


def match_result_json(state: domain.MatchState) -> dict[str, Any]:
    """The record's `result`; at a rotation table also the winner's name and every person's
    total and wins (docs/spec/records.md §3)."""
    result: dict[str, Any] = {
        "finished": state.finished,
        "winner": state.winner,
        "totals": list(state.totals),
    }
    session = state.session
    if session is not None:
        result["player"] = state.players[state.winner] if state.winner is not None else None
        result["people"] = [
            {"name": name, "total": total, "wins": wins}
            for name, total, wins in zip(session.people, session.totals, session.wins, strict=True)
        ]
    return result


def seat_change_json(event: SeatsRotated) -> dict[str, Any]:
    return {"left": event.left, "entered": event.entered, "seat": event.seat}


def _queue_entry(
    event: PlayerQueued | PlayerLeftQueue, games: list[dict[str, Any]]
) -> dict[str, Any]:
    """Where in the match a person joined or left the queue: after how many actions of the last
    game dealt (`game` None: before the first deal)."""
    last = games[-1] if games else None
    return {
        "do": "join" if isinstance(event, PlayerQueued) else "leave",
        "name": event.name,
        "game": last["index"] if last is not None else None,
        "after": len(last["actions"]) if last is not None else 0,
        "at_ms": event.at_ms,
    }


def _game_entry(event: GameStarted, state: domain.MatchState) -> dict[str, Any]:
    if event.seed is not None:
        packs = packs_from_seed(event.seed)
        deal: dict[str, Any] = {
            "algorithm": ALGORITHM,
            "seed": event.seed,
            "commitment": event.commitment,
            "packs": [[card.code for card in pack] for pack in packs],
        }
    else:
        assert event.packs is not None
        deal = {"packs": [[card.code for card in pack] for pack in event.packs]}
    entry: dict[str, Any] = {"index": event.game_index}
    if state.session is not None:  # a rotation table: who played this game, and what followed
        entry["players"] = list(state.players)
        entry["seat_change"] = None
    return entry | {
        "started_at_ms": event.at_ms,
        "deal": deal,
        "first_player": event.first_player,
        "first_player_reason": event.first_player_reason,
        "actions": [],
        "result": None,
    }


def _entry(
    action: domain.Action,
    batch: Sequence[domain.Event],
    game: dict[str, Any],
    number_of: dict[int, int],
) -> dict[str, Any]:
    entry = action.to_json()
    entry["ms"] = batch[0].at_ms - game["started_at_ms"]
    decisions, game_result, _ = describe(action, batch, lambda index: number_of.get(index, 0))
    entry.update(decisions)
    if game_result is not None:
        game["result"] = game_result
    return entry


def _candidates(
    state: domain.MatchState, events: Sequence[domain.Event], i: int
) -> Iterator[domain.Action]:
    first = events[i]
    guess = action_of(first)
    if isinstance(guess, domain.Resign) and i + 1 < len(events):
        # A game resigned by an abandon (docs/spec/rules.md §8): the match ends in the same batch.
        after = events[i + 1]
        if isinstance(after, MatchWon) and after.abandoned_by == guess.seat:
            yield domain.Abandon(guess.seat, claimed=after.claimed)
    if guess is not None:
        yield guess
    if isinstance(guess, domain.Call) and guess.move is None:
        # A stream written before calls kept their named move: the caller may have named the
        # compulsory move; the engine played it if it was allowed.
        for later in events[i + 1 :]:
            if isinstance(later, domain.CompulsoryMovePlayed):
                yield domain.Call(guess.seat, domain.Move(guess.seat, later.src, later.dst))
                break
    for seat in (0, 1):  # an event this module does not know as a first event: ask every action
        yield from domain.legal_actions(state, seat)
        yield from (domain.Resign(seat), domain.OfferDraw(seat), domain.TimeOut(seat))


def _explain(
    state: domain.MatchState, events: Sequence[domain.Event], i: int
) -> tuple[domain.Action, list[domain.Event], domain.MatchState]:
    """The action whose events are the stream's events from index `i`, those events and the
    state after them."""
    at_ms = getattr(events[i], "at_ms", 0)
    for action in _candidates(state, events, i):
        try:
            batch, after = domain.decide_and_fold(state, Act(action, at_ms))
        except RulesError:
            continue
        if _same_events(events[i : i + len(batch)], batch):
            return action, batch, after
    name = type(events[i]).__name__
    raise ExportError(f"event {i + 1} ({name}) is not what the engine decides for any action")


def _same_events(stored: Sequence[domain.Event], decided: Sequence[domain.Event]) -> bool:
    """The stored events are the engine's; a call stored before calls kept their named move
    (`named` None) matches the same call decided with its name."""
    if len(stored) != len(decided):
        return False
    for old, new in zip(stored, decided, strict=True):
        if old == new:
            continue
        unnamed = isinstance(old, domain.CrapetteCalled) and old.named is None
        if not (
            unnamed and isinstance(new, domain.CrapetteCalled) and replace(new, named=None) == old
        ):
            return False
    return True


def export_all(
    store: EventStore, since_ms: int | None = None
) -> Iterator[int | dict[str, Any] | RecordError | None]:
    """Every match started at or after `since_ms`, for NDJSON. Yields first the number of matches
    to look at (for a progress bar), then one item per match: its record, None when it started
    before `since_ms`, or the RecordError that stops it from being exported (one bad match does
    not stop a bulk export)."""
    streams = store.list_streams(MATCH_PREFIX)
    yield len(streams)
    for stream in streams:
        first = store.read(stream, 1, 1)
        started = first[0].data.get("at_ms") if first else None
        if not isinstance(started, int) or (since_ms is not None and started < since_ms):
            yield None
            continue
        try:
            yield record_from_stored(store.read(stream))
        except RecordError as exc:
            exc.message = f"{stream}: {exc.message}"
            yield exc
