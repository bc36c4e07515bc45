"""The lobby and its seats: presets, opening a table (with a bot, or as a rematch), taking a
seat, the table list, the clients of a seat coming and going, and claiming the seat of an owner
away past the grace period. These facts go to the table stream (`server.tables`); the match
itself starts, and goes on, through the autopilot.

Every change of a table is announced with its new lobby view (`table_json`)."""

from __future__ import annotations

import enum
from collections.abc import Callable

import domain
from eventstore import NewEvent
from server import schemas
from server import tables as t
from server.autopilot import Autopilot
from server.errors import (
    ForbiddenError,
    InvalidInputError,
    NotPlayingError,
    SeatTakenError,
    TooEarlyError,
)
from server.matches import MatchEntry, MatchRepository
from server.payloads import Done, JsonObject, PresetJson, SeatTicket, TableJson
from server.presence import Presence
from server.publisher import Publisher


class Preset(enum.Enum):
    """An option left to the preset (`open_table`'s default), unlike None, which is a value."""

    VALUE = "the preset's value"


class Lobby:
    def __init__(
        self,
        repo: MatchRepository,
        presence: Presence,
        autopilot: Autopilot,
        publisher: Publisher,
        *,
        clock: Callable[[], int],
    ) -> None:
        self.repo = repo
        self.presence = presence
        self.autopilot = autopilot
        self.publisher = publisher
        self.clock = clock

    # -- tables --------------------------------------------------------------------------------

    @staticmethod
    def presets() -> list[PresetJson]:
        return [
            {
                "name": name,
                "description": domain.PRESET_DESCRIPTIONS.get(name, ""),
                "ruleset": ruleset.to_json(),
            }
            for name, ruleset in domain.PRESETS.items()
        ]

    def open_table(
        self,
        *,
        name: str,
        preset: str = "classic",
        options: JsonObject | None = None,
        match: str | None = None,
        move_time_limit_s: int | None | Preset = Preset.VALUE,
        bot: str | None = None,
        seat: int | None = None,
        rematch_of: str | None = None,
    ) -> SeatTicket:
        ruleset_json = {"preset": preset, **(options or {})}
        if match is not None:
            ruleset_json["match"] = match
        if move_time_limit_s is not Preset.VALUE:  # None: no limit, whatever the preset says
            ruleset_json["move_time_limit_s"] = move_time_limit_s
        try:
            ruleset = domain.Ruleset.from_json(ruleset_json)
        except (domain.RulesetError, TypeError, ValueError) as exc:
            raise InvalidInputError(str(exc), details={"options": [str(exc)]}) from None
        limit = ruleset.move_time_limit_s
        if limit is not None and limit > schemas.MAX_MOVE_TIME_S:  # also when given in `options`
            message = f"move_time_limit_s is at most {schemas.MAX_MOVE_TIME_S} seconds."
            raise InvalidInputError(message, details={"options": [message]})
        match_id = t.new_match_id()
        seat = 0 if seat is None else seat
        token = t.new_seat_token()
        opened = {
            "match_id": match_id,
            "ruleset": ruleset.to_json(),
            "preset": ruleset.name,
            "at_ms": self.clock(),
            "rematch_of": rematch_of,
        }
        table = t.evolve_table(None, t.TABLE_OPENED, opened)
        entry = MatchEntry(match_id=match_id, table=table)
        batch = [(t.TABLE_OPENED, opened)]
        taken = {
            "seat": seat,
            "name": name,
            "token_hash": t.hash_token(token),
            "at_ms": opened["at_ms"],
        }
        batch.append((t.SEAT_TAKEN, taken))
        if bot is not None:
            batch.append((t.BOT_SEATED, {"seat": 1 - seat, "bot": bot, "name": f"{bot} bot"}))
        self.repo.store.append(
            t.table_stream(match_id),
            [NewEvent(type=kind, data=data) for kind, data in batch],
            expected_version=0,
        )
        for kind, data in batch[1:]:
            entry.table = t.evolve_table(entry.table, kind, data)
        self.repo.add(entry)
        self.presence.seated(match_id, seat)
        with entry.lock:
            self.autopilot.follow_up(entry)
        return {"match_id": match_id, "seat": seat, "seat_token": token}

    def rematch(self, match_id: str, token: str) -> SeatTicket:
        entry = self.repo.find(match_id)
        with entry.lock:
            seat = entry.seat_of(token)
            if entry.table.rematch is not None:
                raise SeatTakenError(f"A rematch is already open: {entry.table.rematch}.")
            other = entry.table.seats[1 - seat]
            bot = other.bot if other.bot is not None and not other.takeover else None
            mine = entry.table.seats[seat]
            created = self.open_table(
                name=mine.name or "Player",
                options={k: v for k, v in entry.table.ruleset.items() if k != "preset"},
                preset=entry.table.preset,
                bot=bot,
                seat=seat,
                rematch_of=match_id,
            )
            self.repo.append_table(entry, t.REMATCH_OPENED, {"match_id": created["match_id"]})
            self._announce(entry)
        return created

    def tables(self, include_all: bool = False) -> list[TableJson]:
        """The lobby's list, newest first: finished tables only for an hour unless `include_all`."""
        horizon = self.clock() - 3_600_000
        result = []
        for entry in sorted(self.repo.entries(), key=lambda e: -e.table.created_at_ms):
            if include_all or entry.status != "finished" or entry.last_event_ms >= horizon:
                result.append(self.table_json(entry))
        return result

    def table(self, match_id: str) -> TableJson:
        return self.table_json(self.repo.find(match_id))

    def table_json(self, entry: MatchEntry) -> TableJson:
        """A table's lobby view: seats, their presence, the match score (docs/protocol.md)."""
        state = entry.state
        table = entry.table
        return {
            "match_id": entry.match_id,
            "status": entry.status,
            "preset": table.preset,
            "ruleset": table.ruleset,
            "seats": [
                {"name": s.name, "bot": s.bot, "connected": self.presence.connected(entry, i)}
                for i, s in enumerate(table.seats)
            ],
            "presence": [self.presence.seat_json(entry, i) for i in (0, 1)],
            "totals": list(state.totals) if state is not None else [0, 0],
            "games_played": state.games_played if state is not None else 0,
            "version": entry.version,
            "created_at_ms": table.created_at_ms,
            "rematch_of": table.rematch_of,
            "rematch": table.rematch,
        }

    def _announce(self, entry: MatchEntry) -> None:
        self.publisher.table_changed(entry.match_id, self.table_json(entry))

    # -- seats ---------------------------------------------------------------------------------

    def join_seat(self, match_id: str, name: str, seat: int | None = None) -> SeatTicket:
        entry = self.repo.find(match_id)
        with entry.lock:
            self.repo.refresh(entry)
            free = [i for i, s in enumerate(entry.table.seats) if s.free]
            if seat is not None and seat not in free or not free:
                raise SeatTakenError(
                    "That seat is already taken." if free else "This table is full."
                )
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
            self._announce(entry)
            self.autopilot.follow_up(entry)
        return {"match_id": match_id, "seat": seat, "seat_token": token}

    def seat_for(self, match_id: str, token: str | None) -> int | None:
        """The seat a token owns at this table; None for a spectator (no token)."""
        entry = self.repo.find(match_id)
        return None if token is None else entry.seat_of(token)

    def connect(self, match_id: str, seat: int) -> None:
        """A seat's client joined; a returning owner sends away the bot that stood in for him."""
        entry = self.repo.find(match_id)
        with entry.lock:
            self.presence.connect(match_id, seat)
            mine = entry.table.seats[seat]
            if mine.takeover or mine.forfeited:
                self.repo.append_table(
                    entry, t.SEAT_RETURNED, {"seat": seat, "at_ms": self.clock()}
                )
                entry.bots.pop(seat, None)
            self._announce(entry)

    def disconnect(self, match_id: str, seat: int) -> None:
        entry = self.repo.find(match_id)
        with entry.lock:
            self.presence.disconnect(match_id, seat)
            self._announce(entry)

    def claim(self, match_id: str, token: str, what: str) -> Done:
        """Claim the seat of an opponent away past the grace period: a bot takes it over
        (`what == "bot"`; its owner may come back) or it is resigned for, game after game."""
        entry = self.repo.find(match_id)
        with entry.lock:
            seat = entry.seat_of(token)
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
            if what == "bot":
                data = {"seat": absent, "bot": "steady", "takeover": True, "at_ms": at_ms}
                self.repo.append_table(entry, t.BOT_SEATED, data)
            else:
                self.repo.append_table(entry, t.SEAT_FORFEITED, {"seat": absent, "at_ms": at_ms})
                self.autopilot.follow_up(entry)
            self._announce(entry)
        return {"ok": True}
