"""Opening tables (`Openings`): the presets, a table opened from the lobby (perhaps with a
bot), one whose id and seats a tournament arranged and the seat facts its director records, and
`create`, the one way a table's stream is written first (a rematch's table too:
`Rematches.rematch`). The match itself starts, and goes on, through the autopilot; an open table
nobody joined expires in `server.services.upkeep`."""

from __future__ import annotations

import enum
from collections.abc import Callable

import domain
from eventstore import NewEvent
from records import streams
from server.adapters.matches import MatchEntry, MatchRepository
from server.adapters.presence import Presence
from server.errors import CommandConflictError, InvalidInputError, TableConflictError, quoted
from server.model import tables as t
from server.services.autopilot import Autopilot
from server.services.queue import REREAD_ATTEMPTS, RotationQueue
from server.services.tableviews import TableViews
from server.wire.payloads import JsonObject, PresetJson, SeatTicket


class Preset(enum.Enum):
    """An option left to the preset (`open_table`'s default), unlike None, which is a value."""

    VALUE = "the preset's value"


class Openings:
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
        bot_pace: str = t.DEFAULT_BOT_PACE,
    ) -> SeatTicket:
        if bot is not None and bot not in self.autopilot.bot_names():
            message = f"bot is one of {', '.join(self.autopilot.bot_names())}, not {quoted(bot)}."
            raise InvalidInputError(message, details={"bot": [message]})
        if bot_pace not in t.BOT_PACES:
            message = f"bot_pace is one of {', '.join(t.BOT_PACES)}, not {quoted(bot_pace)}."
            raise InvalidInputError(message, details={"bot_pace": [message]})
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
        if limit is not None and limit > t.MAX_MOVE_TIME_S:  # also when given in `options`
            message = f"move_time_limit_s is at most {t.MAX_MOVE_TIME_S} seconds."
            raise InvalidInputError(message, details={"options": [message]})
        seat = 0 if seat is None else seat
        token = t.new_seat_token()
        taken = {"seat": seat, "name": name, "token_hash": t.hash_token(token)}
        seats: list[tuple[str, JsonObject]] = [(t.SEAT_TAKEN, taken)]
        if bot is not None:
            seats.append((t.BOT_SEATED, {"seat": 1 - seat, "bot": bot, "name": f"{bot} bot"}))
        match_id = self.create(ruleset.to_json(), seats, rematch_of, bot_pace)
        return {"match_id": match_id, "seat": seat, "seat_token": token}

    def open_arranged(
        self,
        match_id: str,
        ruleset: JsonObject,
        seats: list[tuple[str, JsonObject]],
        bot_pace: str,
        tournament_id: str,
    ) -> None:
        """A table whose id and seats tournament `tournament_id`'s desk chose (its seats are
        `SeatTaken` with the hash of each player's token, or `BotSeated`); its opening names
        the tournament. A table of that id already there is `ConcurrencyError` (opened by
        another process, or by something else: the desk looks, `model.tables.opened_by`)."""
        self.create(ruleset, seats, None, bot_pace, match_id=match_id, tournament=tournament_id)

    def arranged_fact(self, match_id: str, kind: str, data: JsonObject) -> None:
        """A seat fact that no seat token asked for (a tournament's director recorded a no-show
        or a withdrawal: `SeatForfeited`; a player claimed his name: `SeatTaken` with his token),
        then what follows from it (`Autopilot.follow_up`), told to the table."""
        entry = self.repo.find(match_id)
        for _attempt in range(REREAD_ATTEMPTS):
            with entry.lock:
                self.repo.refresh(entry)
                try:
                    self.repo.append_table(entry, kind, {**data, "at_ms": self.clock()})
                except TableConflictError:
                    continue
                if kind == t.SEAT_TAKEN:
                    self.presence.seated(match_id, data["seat"])
                self.autopilot.follow_up(entry)
                self.views.announce(entry)
                return
        raise CommandConflictError("The table kept changing meanwhile: try again.")

    def create(
        self,
        ruleset: JsonObject,
        seats: list[tuple[str, JsonObject]],
        rematch_of: str | None,
        bot_pace: str,
        queue: tuple[t.Seat, ...] = (),
        match_id: str | None = None,
        tournament: str | None = None,
    ) -> str:
        """A new table: its stream written in one append (opened, then its seats), then its
        match started by the autopilot if both seats are taken, then `queue` (a rotation
        table's rematch: the people who waited, in their order) put in its queue."""
        match_id = t.new_match_id() if match_id is None else match_id
        at_ms = self.clock()
        opened = {
            "match_id": match_id,
            "ruleset": ruleset,
            "preset": ruleset["preset"],
            "at_ms": at_ms,
            "rematch_of": rematch_of,
            "bot_pace": bot_pace,
        }
        if tournament is not None:
            opened["tournament"] = tournament
        batch = [
            (t.TABLE_OPENED, opened),
            *((kind, {**data, "at_ms": at_ms}) for kind, data in seats),
        ]
        self.repo.store.append(
            streams.table_stream(match_id),
            [NewEvent(type=kind, data=data) for kind, data in batch],
            expected_version=0,
        )
        table = None
        for kind, data in batch:
            table = t.evolve_table(table, kind, data)
        assert table is not None
        entry = MatchEntry(match_id=match_id, table=table)
        self.repo.add(entry)
        for kind, data in seats:
            if kind == t.SEAT_TAKEN:
                self.presence.seated(match_id, data["seat"])
        with entry.lock:
            self.autopilot.follow_up(entry)
            for person in queue:  # a bot standing in for a person does not follow him
                bot = person.bot if person.token_hash is None else None
                self.queue.enqueue(entry, person.name or "", person.token_hash, bot)
        return match_id
