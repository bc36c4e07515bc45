"""A seat's clients coming and going (`Clients`): a client (a Socket.IO session) joins a
table as the person its token is, or as a spectator, and leaves it; a person's client counts in
the presence (`server.adapters.presence`), and a returning owner sends away the bot that stood
in for him."""

from __future__ import annotations

from collections.abc import Callable

from server.adapters.matches import MatchRepository
from server.adapters.presence import Presence
from server.adapters.publisher import Publisher
from server.model import tables as t
from server.services.reads import Reads
from server.services.seats import Seats, placed
from server.services.tableviews import TableViews
from server.wire.payloads import JoinAck, TableJson


class Clients:
    def __init__(
        self,
        repo: MatchRepository,
        presence: Presence,
        publisher: Publisher,
        reads: Reads,
        seats: Seats,
        views: TableViews,
        *,
        clock: Callable[[], int],
    ) -> None:
        self.repo = repo
        self.presence = presence
        self.publisher = publisher
        self.reads = reads
        self.seats = seats
        self.views = views
        self.clock = clock

    def join_table(
        self, client: str, match_id: str, token: str | None, last_version: int | None
    ) -> tuple[JoinAck, TableJson | None]:
        """A client (a Socket.IO session) comes to a table: as the person a token is (seated,
        or waiting at a rotation table) or, without one, as a spectator. It leaves the table it
        was at, enters this one's room with its backlog (`Reads.join`), and a person's coming
        is told the whole table (`connect`). Returns the acknowledgement, and the table's
        lobby view for a spectator, whom nobody else needs to hear of."""
        found = self.seats.person_for(match_id, token)
        self.leave(client)
        place = None if found is None else found[0]
        # Snapshot or backlog, as the person's seat is once the match is caught up (a seat
        # change may come with it): the viewer the client was filed under.
        joined = self.reads.join(client, match_id, place, last_version)
        table = None
        if place is not None:
            self.connect(match_id, place)  # tells the whole table, the client included
        else:
            table = self.views.table(match_id)
        ack: JoinAck = {
            "ok": True,
            "match_id": match_id,
            "seat": joined.seat,
            "version": joined.version,
        }
        if place is not None and self.repo.find(match_id).table.rotation != "off":
            ack["waiting"] = joined.seat is None
            ack["name"] = joined.name
        return ack, table

    def leave(self, client: str) -> None:
        """A client leaves the table it was at (if any): its person's seat is one client
        fewer, which the table hears of (`disconnect`)."""
        session = self.publisher.leave(client)
        if session is not None and session[1] is not None:
            self.disconnect(session[0], session[1])

    def connect(self, match_id: str, place: int) -> None:
        """A person's client joined; a returning owner sends away the bot that stood in for him."""
        entry = self.repo.find(match_id)
        with entry.lock:
            self.presence.connect(match_id, place)
            self.repo.refresh(entry)  # a takeover claimed through another process, just now
            mine = entry.table.people[place]
            if mine.takeover or (mine.forfeited and not mine.abandoned):
                seat = entry.table.seat_of_place(place)
                data = {"seat": place if seat is None else seat, "at_ms": self.clock()}
                self.repo.append_table(entry, t.SEAT_RETURNED, placed(entry, data, place))
                if seat is not None:
                    entry.bots.pop(seat, None)
            self.views.announce(entry)

    def disconnect(self, match_id: str, place: int) -> None:
        entry = self.repo.find(match_id)
        with entry.lock:
            self.presence.disconnect(match_id, place)
            self.views.announce(entry)
