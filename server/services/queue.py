"""A rotation table's queue (`RotationQueue`; docs/spec/rules.md §10): a person, or a bot
put there by a person at the table, joins it (`join`, from `Seats.join_seat` once the seats are
taken; `enqueue`, also for the people who waited, coming along to a rematch: `Openings.create`),
and a waiting person leaves it for good (`leave`, the `abandon` of a rotation table:
`Endings.abandon_command`). The table stream keeps each person's token, the match stream his
place in the queue."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import domain
from domain.names import same_name
from server.adapters.matches import MatchEntry, MatchRepository
from server.adapters.presence import Presence
from server.errors import (
    CommandConflictError,
    ForbiddenError,
    InvalidInputError,
    NotPlayingError,
    SeatTakenError,
    quoted,
)
from server.model import tables as t
from server.services.autopilot import Autopilot
from server.services.tableviews import TableViews
from server.wire.payloads import Done, SeatTicket

# How many times a join (or another change) re-reads a table or a match that moved on meanwhile.
REREAD_ATTEMPTS = 5


class RotationQueue:
    def __init__(
        self,
        repo: MatchRepository,
        presence: Presence,
        autopilot: Autopilot,
        views: TableViews,
        *,
        clock: Callable[[], int],
    ) -> None:
        self.repo = repo
        self.presence = presence
        self.autopilot = autopilot
        self.views = views
        self.clock = clock

    def join(self, entry: MatchEntry, name: str, bot: str | None, by: str | None) -> SeatTicket:
        """A person (or a bot, put there by the person whose token is `by`) joins a rotation
        table's queue: the table stream keeps his token, the match stream his place in the
        queue (`domain.JoinQueue`). The caller holds the lock."""
        people = entry.table.people
        if not entry.live:
            raise SeatTakenError("This table's session is over.")
        if len(people) >= domain.ROTATION_MAX_PEOPLE:
            raise SeatTakenError(
                f"This table is full: {domain.ROTATION_MAX_PEOPLE} people sit or wait at it."
            )
        if bot is not None:
            if bot not in self.autopilot.bot_names():
                message = (
                    f"bot is one of {', '.join(self.autopilot.bot_names())}, not {quoted(bot)}."
                )
                raise InvalidInputError(message, details={"bot": [message]})
            self._check_bot_for_queue(entry, by)
            taken = {person.name for person in people}
            name = next(
                f"{bot} bot{'' if n == 1 else f' {n}'}"
                for n in range(1, 9)
                if f"{bot} bot{'' if n == 1 else f' {n}'}" not in taken
            )
        refuse_same_name(people, name)
        token = t.new_seat_token() if bot is None else None
        self.enqueue(entry, name, None if token is None else t.hash_token(token), bot)
        self.views.announce(entry)
        return {
            "match_id": entry.match_id,
            "seat": None,
            "seat_token": token,
            "waiting": True,
            "name": name,
        }

    @staticmethod
    def _check_bot_for_queue(entry: MatchEntry, by: str | None) -> None:
        """docs/spec/rules.md §10: a bot joins a rotation table's queue only when a person at
        the table (seated, or waiting in the queue) asks with his seat token, and only while no
        other bot waits there, so that bots fill a table in without keeping people out."""
        session = entry.state.session if entry.state is not None else None
        queue = session.queue if session is not None else ()
        table = entry.table
        place = table.place_of(by)
        here = place is not None and (
            table.seat_of_place(place) is not None or table.people[place].name in queue
        )
        if not here:
            raise ForbiddenError(
                "Only someone at this table (seated or waiting) may add a bot to its queue.",
                reason="bot_by_person",
            )
        waiting_bots = [
            person.name
            for person in table.people
            if person.name in queue and person.bot is not None and person.token_hash is None
        ]
        if waiting_bots:
            raise ForbiddenError(
                f"{waiting_bots[0]} already waits in the queue: one bot at a time.",
                reason="one_bot_waiting",
                params={"name": waiting_bots[0]},
            )

    def enqueue(
        self, entry: MatchEntry, name: str, token_hash: str | None, bot: str | None
    ) -> None:
        """Put a person at the back of a rotation table's queue: the table stream keeps his
        token's hash (None for a bot), the match stream his place in the queue
        (`domain.JoinQueue`). The caller holds the lock and has checked the name is free."""
        command = domain.JoinQueue(name, self.clock())
        try:
            events = domain.decide(entry.state, command)
        except domain.RulesError as exc:
            raise SeatTakenError(exc.message) from None
        place = len(entry.table.people)
        data = {
            "place": place,
            "name": name,
            "token_hash": token_hash,
            "bot": bot,
            "at_ms": self.clock(),
        }
        self.repo.append_table(entry, t.PERSON_QUEUED, data)
        self._append_queue_change(entry, events, command, f"queue-{place}")
        if token_hash is not None:
            self.presence.seated(entry.match_id, place)

    def _append_queue_change(
        self,
        entry: MatchEntry,
        events: list[domain.Event],
        command: domain.JoinQueue | domain.LeaveQueue,
        cid: str,
    ) -> None:
        """A person joins (once the table's fact is written) or leaves the queue: a game goes
        on meanwhile (through other processes too), so a conflict is read and decided again
        until it lands; only a match that ended meanwhile refuses it."""
        for _attempt in range(REREAD_ATTEMPTS):
            if self.repo.append_match(entry, events, cid):
                return
            self.repo.refresh(entry, with_table=False)  # another process moved on: again
            if cid in entry.commands:  # written by an earlier attempt whose answer was lost
                return
            try:
                events = domain.decide(entry.state, command)
            except domain.RulesError as exc:
                raise NotPlayingError(exc.message) from None
        raise CommandConflictError("The table kept changing while you joined: join again.")

    def leave(self, entry: MatchEntry, token: str) -> Done:
        """`abandon` at a rotation table: a waiting person leaves it for good; a seated one is
        told to resign his game first (his seat would otherwise stay with nobody in it)."""
        place = entry.place_of(token)
        if not entry.live:
            raise NotPlayingError("There is no match in play at this table.")
        if entry.table.seat_of_place(place) is not None:
            raise CommandConflictError(
                "You are seated: resign the game if you must, and leave once you are waiting."
            )
        name = entry.table.people[place].name or ""
        command = domain.LeaveQueue(name, self.clock())
        try:
            events = domain.decide(entry.state, command)
        except domain.RulesError as exc:
            raise NotPlayingError(exc.message) from None
        self._append_queue_change(entry, events, command, f"leave-{place}")
        self.views.announce(entry)
        return {"ok": True}


def refuse_same_name(people: Iterable[t.Seat], name: str) -> None:
    """One name per person at a rotation table, compared by confusable skeleton (domain.names):
    `Ann` and Cyrillic `Аnn` are one name, so nobody passes for someone else in the queue."""
    for person in people:
        if person.name is not None and same_name(person.name, name):
            raise SeatTakenError(
                f"{person.name} is already at this table: choose another name.",
                taken_by=person.name,
            )
