"""Play on from here: a practice table that starts at a position of a finished match, one
person against a bot (docs/protocol.md § practice).

The new match is a stream of its own, like any other: a `MatchStarted` of its own, then the
events of the source game up to that position, copied (the deal, every action), so that the
engine folds the very position and goes on from it by the same rules. Only a finished match
may be played on: its every card is public by then, so nothing is learnt here that its replay
does not show. The copy is re-timed to now (a clock or a bot's pace starts from the moment the
table opens), a call's `target_index` is moved with the stream, and the practice is played to
one win with no time limit, at a table of two (no rotation).

The table stream says it is practice (`TableOpened.practice`: the source match and version),
the table's lobby view says so to the page, and player statistics leave it out
(server/readmodels/stats.py): a practice game counts for nobody."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import domain
from eventstore import NewEvent
from records import streams
from records.streams import match_stream
from server.adapters.matches import MatchRepository
from server.adapters.presence import Presence
from server.errors import InvalidInputError, NotPlayingError, quoted
from server.model import tables as t
from server.services.analyses import Analyses
from server.services.autopilot import Autopilot
from server.wire.payloads import JsonObject, SeatTicket

# The practice's own rules over the source's: one win ends it, nobody is timed, two people.
PRACTICE_RULES: JsonObject = {"match": "wins:1", "move_time_limit_s": None, "rotation": "off"}


class Practice:
    def __init__(
        self,
        repo: MatchRepository,
        analyses: Analyses,
        autopilot: Autopilot,
        presence: Presence,
        *,
        clock: Callable[[], int],
    ) -> None:
        self.repo = repo
        self.analyses = analyses  # it knows whether a match is over (never loading it here)
        self.autopilot = autopilot
        self.presence = presence
        self.clock = clock

    def play_on(
        self,
        match_id: str,
        version: int,
        *,
        name: str,
        seat: int,
        bot: str,
        bot_pace: str = t.DEFAULT_BOT_PACE,
    ) -> SeatTicket:
        """A new practice table at the position after `version` events of the finished match
        `match_id`: `name` in `seat`, `bot` in the other."""
        if bot not in self.autopilot.bot_names():
            message = f"bot is one of {', '.join(self.autopilot.bot_names())}, not {quoted(bot)}."
            raise InvalidInputError(message, details={"bot": [message]})
        if name.casefold() == f"{bot} bot".casefold():
            # The table would name both seats alike ("steady bot (you)", issue 39).
            message = f"{name!r} is the bot's name at that table: choose your own."
            raise InvalidInputError(message, details={"name": [message]})
        if bot_pace not in t.BOT_PACES:
            message = f"bot_pace is one of {', '.join(t.BOT_PACES)}, not {quoted(bot_pace)}."
            raise InvalidInputError(message, details={"bot_pace": [message]})
        last = self.analyses.finished_version(match_id)  # refuses a match in play
        if not 1 <= version <= last:
            message = f"version is between 1 and {last}, not {version}."
            raise InvalidInputError(message, details={"version": [message]})
        stored = self.repo.store.read(match_stream(match_id), 1, version)
        source = [domain.event_from_payload(r.type, r.data) for r in stored]
        new_id = t.new_match_id()
        at_ms = self.clock()
        players = [f"{bot} bot", name] if seat == 1 else [name, f"{bot} bot"]
        events, ruleset = practice_events(source, new_id, (players[0], players[1]), at_ms)
        opened = {
            "match_id": new_id,
            "ruleset": ruleset.to_json(),
            "preset": ruleset.name,
            "at_ms": at_ms,
            "rematch_of": None,
            "bot_pace": bot_pace,
            "practice": {"match_id": match_id, "version": version},
        }
        token = t.new_seat_token()
        taken = {"seat": seat, "name": name, "token_hash": t.hash_token(token), "at_ms": at_ms}
        seated = {"seat": 1 - seat, "bot": bot, "name": f"{bot} bot", "at_ms": at_ms}
        batch = [(t.TABLE_OPENED, opened), (t.SEAT_TAKEN, taken), (t.BOT_SEATED, seated)]
        store = self.repo.store
        # The match first: a table whose stream exists is one the lobby may list and load.
        store.append(
            match_stream(new_id),
            [NewEvent(type=kind, data=data) for kind, data in map(domain.event_to_payload, events)],
            expected_version=0,
        )
        store.append(
            streams.table_stream(new_id),
            [NewEvent(type=kind, data=data) for kind, data in batch],
            expected_version=0,
        )
        entry = self.repo.get(new_id)
        assert entry is not None
        self.presence.seated(new_id, seat)
        with entry.lock:
            self.autopilot.follow_up(entry)
        return {"match_id": new_id, "seat": seat, "seat_token": token}


def practice_events(
    source: list[domain.Event], match_id: str, players: tuple[str, str], at_ms: int
) -> tuple[list[domain.Event], domain.Ruleset]:
    """The events of a practice match at the end of `source` (a match's first events): its own
    `MatchStarted`, then the running game's events, re-timed to `at_ms`. InvalidInputError
    when no game runs at that position; the fold of the copy is checked to be that position."""
    if not source or not isinstance(source[0], domain.MatchStarted):
        raise InvalidInputError("That position is in no match.", details={"version": ["No match."]})
    state = domain.fold(source)
    game = state.game
    if game is None or game.over or state.finished:
        message = "No game is being played at that position: choose one inside a game."
        raise NotPlayingError(message)
    start = max(i for i, e in enumerate(source) if isinstance(e, domain.GameStarted))
    rules = {**source[0].ruleset.to_json(), **PRACTICE_RULES}
    ruleset = domain.Ruleset.from_json(rules)
    shift = start - 1  # the game's first event comes right after MatchStarted
    events: list[domain.Event] = [domain.MatchStarted(match_id, ruleset, players, at_ms)]
    for event in source[start:]:
        if not isinstance(event, _QUEUE_EVENTS):  # a rotation table's queue: no part of it
            events.append(_moved(event, shift, at_ms))
    copied = domain.fold(events)
    assert copied.game is not None and copied.game.piles == game.piles, "a copy folds the same"
    return events, ruleset


_QUEUE_EVENTS = (domain.PlayerQueued, domain.PlayerLeftQueue, domain.SeatsRotated)


def _moved(event: domain.Event, shift: int, at_ms: int) -> domain.Event:
    changes: dict[str, Any] = {}
    if hasattr(event, "at_ms"):
        changes["at_ms"] = at_ms
    if isinstance(event, domain.GameStarted):
        changes["game_index"] = 0
    if isinstance(event, domain.CrapetteCalled):
        changes["target_index"] = event.target_index - shift
    return replace(event, **changes)
