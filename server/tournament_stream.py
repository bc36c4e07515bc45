"""The tournament stream `tournament-<id>` in the event store: reading it folded, appending a
command's events at the version they were decided from (docs/tournaments.md).

The store's expected-version check is the only arbiter between two writers (two director
requests, two processes): the loser reads the newer events and decides again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from domain.errors import DomainError
from domain.tournament import (
    TournamentCommand,
    TournamentEvent,
    TournamentState,
    event_from_payload,
    event_to_payload,
    evolve,
    play,
)
from eventstore import ConcurrencyError, EventStore, NewEvent, StreamNameError

TOURNAMENT_PREFIX = "tournament-"
MAX_TRIES = 5


class TournamentStreamError(Exception):
    """A stored tournament stream the domain cannot read (a bug or a foreign writer)."""


def tournament_stream(tournament_id: str) -> str:
    return f"{TOURNAMENT_PREFIX}{tournament_id}"


def read_tournament(
    store: EventStore, tournament_id: str
) -> tuple[list[TournamentEvent], TournamentState | None]:
    """The stream's events and their fold (None: no such tournament)."""
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


def append_events(
    store: EventStore,
    tournament_id: str,
    events: Sequence[TournamentEvent],
    expected_version: int,
    command_id: str,
) -> int:
    """Append one command's events (ids `<tournament id>/<command id>/<n>`, so a retried
    command writes nothing twice); the stream's new version."""
    batch = []
    for index, event in enumerate(events):
        kind, data = event_to_payload(event)
        batch.append(
            NewEvent(
                type=kind,
                data=data,
                metadata={"command_id": command_id},
                event_id=f"{tournament_id}/{command_id}/{index}",
            )
        )
    return store.append(tournament_stream(tournament_id), batch, expected_version)


def execute(
    store: EventStore,
    tournament_id: str,
    command: TournamentCommand | Callable[[TournamentState | None], TournamentCommand],
    command_id: str,
) -> tuple[list[TournamentEvent], TournamentState]:
    """Read, decide, append at the version read; after a concurrency conflict read again and
    decide again (a `TournamentError` refusal propagates). `command` may be a function of the
    state, for a command that depends on it."""
    for _ in range(MAX_TRIES):
        stored, state = read_tournament(store, tournament_id)
        order = command(state) if callable(command) else command
        events, after = play(state, order)
        try:
            append_events(store, tournament_id, events, len(stored), command_id)
        except ConcurrencyError:
            continue
        return events, after
    raise TournamentStreamError(f"{tournament_stream(tournament_id)}: too many conflicts")
