"""A finished table's rematch, as offers and answers (`Rematches`): an offer waits
`REMATCH_OFFER_MS` (`server.model.tables`) for the other seat's answer; once accepted the new
table opens (`Openings.create`) with both players in the seats they had."""

from __future__ import annotations

from collections.abc import Callable

from server.adapters.matches import MatchEntry, MatchRepository
from server.errors import NoRematchOfferError, NotPlayingError, SeatTakenError
from server.model import tables as t
from server.services.openings import Openings
from server.services.tableviews import TableViews
from server.wire.payloads import JsonObject, RematchAnswerJson


class Rematches:
    def __init__(
        self,
        repo: MatchRepository,
        openings: Openings,
        views: TableViews,
        *,
        clock: Callable[[], int],
    ) -> None:
        self.repo = repo
        self.openings = openings
        self.views = views
        self.clock = clock

    def rematch(self, match_id: str, token: str, answer: str = "offer") -> RematchAnswerJson:
        """A finished table's rematch, as offer and answer (`answer`: "offer", "accept" or
        "decline"). Offering when the other seat has offered already accepts; against a bot (not
        one standing in for an absent owner) an offer is accepted at once. Once accepted the new
        table opens with both players in the seats they had, each with the seat token he had, so
        nobody else (a spectator following the link) can take a seat there. At a rotation table
        the people waiting come along in the new queue, in their order (`_same_queue`)."""
        entry = self.repo.find(match_id)
        with entry.lock:
            self.repo.refresh(entry)
            seat = entry.authorised_seat(token)
            table = entry.table
            if table.rematch is not None:
                raise SeatTakenError(f"A rematch is already open: {table.rematch}.")
            if entry.status != "finished":
                raise NotPlayingError("A rematch is offered once the match is over.")
            other = table.seats[1 - seat]
            theirs = self._pending_offer(table, 1 - seat)
            by_bot = other.bot is not None and not other.takeover
            at_ms = self.clock()
            if answer == "decline":
                if theirs is None:
                    raise NoRematchOfferError("There is no rematch offer to decline.")
                self.repo.append_table(entry, t.REMATCH_DECLINED, {"seat": seat, "at_ms": at_ms})
                self.views.announce(entry)
                return {"ok": True, "status": "declined", "seat": seat}
            if answer == "accept" and theirs is None:
                lapsed = table.rematch_offer is not None and table.rematch_offer.seat != seat
                raise NoRematchOfferError(
                    "The rematch offer has lapsed: offer one yourself."
                    if lapsed
                    else "There is no rematch offer to accept."
                )
            if theirs is None and not by_bot:
                self.repo.append_table(entry, t.REMATCH_OFFERED, {"seat": seat, "at_ms": at_ms})
                self.views.announce(entry)
                return {
                    "ok": True,
                    "status": "offered",
                    "seat": seat,
                    "expires_at_ms": at_ms + t.REMATCH_OFFER_MS,
                }
            new_id = self.openings.create(
                table.ruleset,
                self._same_seats(table),
                match_id,
                table.bot_pace,
                self._same_queue(entry),
            )
            self.repo.append_table(entry, t.REMATCH_OPENED, {"match_id": new_id})
            self.views.announce(entry)
        return {
            "ok": True,
            "status": "opened",
            "seat": seat,
            "match_id": new_id,
            "seat_token": token,
        }

    def _pending_offer(self, table: t.Table, seat: int) -> t.RematchAnswer | None:
        """Seat `seat`'s rematch offer, if it still stands (it lapses after t.REMATCH_OFFER_MS)."""
        offer = table.rematch_offer
        if offer is None or offer.seat != seat or self.clock() >= offer.at_ms + t.REMATCH_OFFER_MS:
            return None
        return offer

    @staticmethod
    def _same_seats(table: t.Table) -> list[tuple[str, JsonObject]]:
        """Each player in the seat he had, with the token he had (its hash), a bot as the bot."""
        seats: list[tuple[str, JsonObject]] = []
        for index, seat in enumerate(table.seats):
            if seat.token_hash is not None:  # a person (perhaps with a bot standing in)
                data = {"seat": index, "name": seat.name, "token_hash": seat.token_hash}
                seats.append((t.SEAT_TAKEN, data))
            elif seat.bot is not None:
                data = {"seat": index, "bot": seat.bot, "name": seat.name or f"{seat.bot} bot"}
                seats.append((t.BOT_SEATED, data))
        return seats

    @staticmethod
    def _same_queue(entry: MatchEntry) -> tuple[t.Seat, ...]:
        """A rotation table's queue at the session's end (docs/spec/rules.md §10), next first:
        each person with the token he had (its hash), a bot as the bot. Nobody changes seat
        after the last game, so the session's winner is one of the pair seated; who left the
        queue for good is in it no more. Empty at any other table."""
        state = entry.state
        session = state.session if state is not None else None
        if session is None:
            return ()
        people = [entry.table.place_named(name) for name in session.queue]
        return tuple(entry.table.people[place] for place in people if place is not None)
