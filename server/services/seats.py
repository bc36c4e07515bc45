"""Taking a seat and claiming one (`Seats`): a free seat taken (at a full rotation table,
the queue joined: `RotationQueue.join`), which seat or person a token is at a table, and the
seat of an owner away past the grace period claimed, for a bot or as resigned. A returning
owner takes his seat back when his client comes (`Clients.connect`)."""

from __future__ import annotations

from collections.abc import Callable

from server.adapters.matches import MatchEntry, MatchRepository
from server.adapters.presence import Presence
from server.errors import (
    ForbiddenError,
    NotPlayingError,
    SeatTakenError,
    TableConflictError,
    TooEarlyError,
)
from server.model import tables as t
from server.services.autopilot import Autopilot
from server.services.queue import REREAD_ATTEMPTS, RotationQueue, refuse_same_name
from server.services.tableviews import TableViews
from server.wire.payloads import Done, JsonObject, SeatTicket


def placed(entry: MatchEntry, data: JsonObject, place: int) -> JsonObject:
    """A seat event's data, naming the person's place at a rotation table
    (`server.model.tables`: a seat is not a person there); unchanged elsewhere, where a place is
    its seat."""
    return data if entry.table.rotation == "off" else {**data, "place": place}


class Seats:
    def __init__(
        self,
        repo: MatchRepository,
        presence: Presence,
        autopilot: Autopilot,
        queue: RotationQueue,
        views: TableViews,
        *,
        clock: Callable[[], int],
    ) -> None:
        self.repo = repo
        self.presence = presence
        self.autopilot = autopilot
        self.queue = queue
        self.views = views
        self.clock = clock

    def join_seat(
        self,
        match_id: str,
        name: str,
        seat: int | None = None,
        *,
        bot: str | None = None,
        token: str | None = None,
    ) -> SeatTicket:
        """Take a free seat; at a rotation table whose seats are taken, join its queue (a person,
        or with `bot` a bot, put there by a person at the table, `token` his seat token:
        docs/protocol.md, rotation tables; docs/spec/rules.md §10). Another process writing to the
        table meanwhile makes the join decided again on the table as it is now (another seat,
        the queue, or a refusal), a few times before it answers `conflict`."""
        for _attempt in range(REREAD_ATTEMPTS - 1):
            try:
                return self._join_seat(match_id, name, seat, bot, token)
            except TableConflictError:
                continue  # the table was read again: decide once more
        return self._join_seat(match_id, name, seat, bot, token)

    def _join_seat(
        self, match_id: str, name: str, seat: int | None, bot: str | None, token: str | None
    ) -> SeatTicket:
        entry = self.repo.find(match_id)
        with entry.lock:
            self.repo.refresh(entry)
            if entry.table.expired:
                raise SeatTakenError(
                    "This table expired: nobody joined it in time. Open a new one from the lobby."
                )
            free = [i for i, s in enumerate(entry.table.seats) if s.free]
            rotation = entry.table.rotation != "off"
            if rotation and not free and seat is None:
                return self.queue.join(entry, name, bot, token)
            if bot is not None:
                raise SeatTakenError("A bot joins only the queue of a rotation table.")
            if seat is not None and seat not in free or not free:
                raise SeatTakenError(
                    "That seat is already taken." if free else "This table is full."
                )
            if rotation:
                refuse_same_name(entry.table.people, name)
            seat = free[0] if seat is None else seat
            token = t.new_seat_token()
            data = {
                "seat": seat,
                "name": name,
                "token_hash": t.hash_token(token),
                "at_ms": self.clock(),
            }
            self.repo.append_table(entry, t.SEAT_TAKEN, data)
            self.presence.seated(match_id, seat)
            self.views.announce(entry)
            self.autopilot.follow_up(entry)
        if rotation:
            return {
                "match_id": match_id,
                "seat": seat,
                "seat_token": token,
                "waiting": False,
                "name": name,
            }
        return {"match_id": match_id, "seat": seat, "seat_token": token}

    def seat_for(self, match_id: str, token: str | None) -> int | None:
        """The seat a token owns at this table; None for a spectator (no token)."""
        entry = self.repo.find(match_id)
        return None if token is None else self.repo.authorise(entry, token)

    def person_for(self, match_id: str, token: str | None) -> tuple[int, int | None] | None:
        """(place, seat now or None while waiting) of the person a token is at this table;
        None for a spectator (no token)."""
        if token is None:
            return None
        entry = self.repo.find(match_id)
        if entry.table.place_of(token) is None:
            with entry.lock:
                self.repo.refresh(entry)  # a person who joined through another process
        place = entry.place_of(token)
        return place, entry.table.seat_of_place(place)

    def claim(self, match_id: str, token: str, what: str) -> Done:
        """Claim the seat of an opponent away past the grace period: a bot takes it over
        (`what == "bot"`; its owner may come back), or the win is claimed: he abandons the match
        (the autopilot's `Abandon`, a `MatchWon` saying it was claimed; at a rotation table he
        resigns game after game, there being no match to abandon)."""
        entry = self.repo.find(match_id)
        with entry.lock:
            self.repo.refresh(entry)  # what other processes wrote: decide on the latest table
            seat = self.repo.authorise(entry, token)
            absent = 1 - seat
            if not entry.live:
                raise NotPlayingError("There is no match in play at this table.")
            if entry.table.seats[absent].bot is not None:
                raise ForbiddenError("A bot plays that seat; there is nothing to claim.")
            presence = self.presence.seat_json(entry, absent)
            claimable_at_ms = presence["claimable_at_ms"]  # None: connected
            if claimable_at_ms is None or self.clock() < claimable_at_ms:
                raise TooEarlyError(
                    "Your opponent is still within the grace period.",
                    claimable_at_ms=claimable_at_ms,
                )
            at_ms = self.clock()
            place = entry.table.seated[absent]
            if what == "bot":
                data = {"seat": absent, "bot": "steady", "takeover": True, "at_ms": at_ms}
                self.repo.append_table(entry, t.BOT_SEATED, placed(entry, data, place))
            else:
                data = {"seat": absent, "at_ms": at_ms}
                self.repo.append_table(entry, t.SEAT_FORFEITED, placed(entry, data, place))
                self.autopilot.follow_up(entry)
            self.views.announce(entry)
        return {"ok": True}
