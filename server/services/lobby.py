"""The lobby and its seats: presets, opening a table (with a bot, or as a rematch), taking a
seat, the table list, the clients of a seat coming and going, and claiming the seat of an owner
away past the grace period. These facts go to the table stream (`server.model.tables`); the match
itself starts, and goes on, through the autopilot.

Every change of a table is announced with its new lobby view (`table_json`)."""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable

import domain
from domain.names import same_name
from eventstore import NewEvent
from records import streams
from server.adapters.matches import MatchEntry, MatchRepository
from server.adapters.presence import Presence, TableOf
from server.adapters.publisher import Publisher
from server.errors import (
    CommandConflictError,
    ForbiddenError,
    InvalidInputError,
    NoRematchOfferError,
    NotPlayingError,
    SeatTakenError,
    TableConflictError,
    TooEarlyError,
)
from server.model import tables as t
from server.readmodels.lobbyview import LobbyProjection, LobbyRow, new_session_facts
from server.services.autopilot import Autopilot
from server.services.reads import Reads
from server.wire.payloads import (
    CommandDone,
    Done,
    JoinAck,
    JsonObject,
    PersonJson,
    PresetJson,
    RematchAnswerJson,
    RematchOfferJson,
    RotationJson,
    SeatTicket,
    TableJson,
)

# How long a rematch offer waits for the other player's answer.
REMATCH_OFFER_MS = 60_000
# How many times a join re-reads a table or a match that moved on meanwhile.
_QUEUE_ATTEMPTS = 5
# A match in play with nobody at it for this long is idle: out of the lobby's "Live games".
IDLE_AFTER_S = 600.0


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
        projection: LobbyProjection,
        reads: Reads,
        *,
        clock: Callable[[], int],
        idle_after_s: float | None = IDLE_AFTER_S,
    ) -> None:
        self.repo = repo
        self.reads = reads
        self.idle_after_ms = None if idle_after_s is None else int(idle_after_s * 1000)
        self.projection = projection
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
        bot_pace: str = t.DEFAULT_BOT_PACE,
    ) -> SeatTicket:
        if bot is not None and bot not in self.autopilot.bot_names():
            message = f"bot is one of {', '.join(self.autopilot.bot_names())}, not {bot!r}."
            raise InvalidInputError(message, details={"bot": [message]})
        if bot_pace not in t.BOT_PACES:
            message = f"bot_pace is one of {', '.join(t.BOT_PACES)}, not {bot_pace!r}."
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
        match_id = self._create(ruleset.to_json(), seats, rematch_of, bot_pace)
        return {"match_id": match_id, "seat": seat, "seat_token": token}

    def open_arranged(
        self, match_id: str, ruleset: JsonObject, seats: list[tuple[str, JsonObject]], bot_pace: str
    ) -> None:
        """A table whose id and seats someone else chose (a tournament's round: its seats are
        `SeatTaken` with the hash of each player's token, or `BotSeated`). Another process
        opening the same table first is `ConcurrencyError` (it is open: nothing to do)."""
        self._create(ruleset, seats, None, bot_pace, match_id=match_id)

    def arranged_fact(self, match_id: str, kind: str, data: JsonObject) -> None:
        """A seat fact that no seat token asked for (a tournament's director recorded a no-show
        or a withdrawal: `SeatForfeited`; a player claimed his name: `SeatTaken` with his token),
        then what follows from it (`Autopilot.follow_up`), told to the table."""
        entry = self.repo.find(match_id)
        for _attempt in range(_QUEUE_ATTEMPTS):
            with entry.lock:
                self.repo.refresh(entry)
                try:
                    self.repo.append_table(entry, kind, {**data, "at_ms": self.clock()})
                except TableConflictError:
                    continue
                if kind == t.SEAT_TAKEN:
                    self.presence.seated(match_id, data["seat"])
                self.autopilot.follow_up(entry)
                self._announce(entry)
                return
        raise CommandConflictError("The table kept changing meanwhile: try again.")

    def _create(
        self,
        ruleset: JsonObject,
        seats: list[tuple[str, JsonObject]],
        rematch_of: str | None,
        bot_pace: str,
        queue: tuple[t.Seat, ...] = (),
        match_id: str | None = None,
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
                self._enqueue(entry, person.name or "", person.token_hash, bot)
        return match_id

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
                self._announce(entry)
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
                self._announce(entry)
                return {
                    "ok": True,
                    "status": "offered",
                    "seat": seat,
                    "expires_at_ms": at_ms + REMATCH_OFFER_MS,
                }
            new_id = self._create(
                table.ruleset,
                self._same_seats(table),
                match_id,
                table.bot_pace,
                self._same_queue(entry),
            )
            self.repo.append_table(entry, t.REMATCH_OPENED, {"match_id": new_id})
            self._announce(entry)
        return {
            "ok": True,
            "status": "opened",
            "seat": seat,
            "match_id": new_id,
            "seat_token": token,
        }

    def _pending_offer(self, table: t.Table, seat: int) -> t.RematchAnswer | None:
        """Seat `seat`'s rematch offer, if it still stands (it lapses after REMATCH_OFFER_MS)."""
        offer = table.rematch_offer
        if offer is None or offer.seat != seat or self.clock() >= offer.at_ms + REMATCH_OFFER_MS:
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

    def tables(self, include_all: bool = False) -> list[TableJson]:
        """The lobby's list, newest first, from the lobby projection (no match is loaded for
        it): finished tables only for an hour and expired ones not at all, unless
        `include_all`."""
        self.projection.catch_up()
        horizon = self.clock() - 3_600_000
        result = []
        for row in sorted(self.projection.all_rows(), key=lambda r: -r.table.created_at_ms):
            status = row.status
            recent = status == "finished" and row.last_event_ms >= horizon
            if include_all or status in ("open", "playing") or recent:
                result.append(self.row_json(row))
        return result

    def row_json(self, row: LobbyRow) -> TableJson:
        """A table's lobby view from its projection row (as `table_json` for a loaded match)."""
        table = row.table
        seen = TableOf(table.match_id, table)
        ready = self.autopilot.ready_at(seen, None if row.finished else row.over_game)
        table_json = self._json(
            seen, row.status, row.totals, row.games_played, row.version, ready, row.over_game
        )
        table_json["idle"] = self._idle(seen, row.status, row.last_event_ms)
        if row.rotation is not None or table.rotation != "off":
            facts = row.rotation or new_session_facts([s.name or "" for s in table.seats])
            table_json["rotation"] = self._rotation_json(seen, facts, row.status)
        return table_json

    def table(self, match_id: str) -> TableJson:
        return self.table_json(self.repo.find(match_id))

    def table_json(self, entry: MatchEntry) -> TableJson:
        """A table's lobby view: seats, their presence, the match score (docs/protocol.md)."""
        state = entry.state
        totals = (0, 0) if state is None else state.totals
        played = 0 if state is None else state.games_played
        ready, over = self.autopilot.ready(entry), self._over_game(entry)
        table_json = self._json(entry, entry.status, totals, played, entry.version, ready, over)
        table_json["idle"] = self._idle(entry, entry.status, entry.last_event_ms)
        if entry.table.rotation != "off":
            facts = self._session_facts(entry)
            table_json["rotation"] = self._rotation_json(entry, facts, entry.status)
        return table_json

    @staticmethod
    def _session_facts(entry: MatchEntry) -> JsonObject:
        """A loaded rotation table's session in the lobby projection's words (`LobbyRow`)."""
        state = entry.state
        session = state.session if state is not None else None
        if state is None or session is None:
            return new_session_facts([s.name or "" for s in entry.table.seats])
        change = session.last
        last_change = None
        if change is not None:
            last_change = {
                "game_index": change.game_index,
                "version": entry.last_rotation_version,
                "left": change.left,
                "entered": change.entered,
                "seat": change.seat,
            }
        return {
            "totals": dict(zip(session.people, session.totals, strict=True)),
            "wins": dict(zip(session.people, session.wins, strict=True)),
            "queue": list(session.queue),
            "last_change": last_change,
            "winner": state.players[state.winner] if state.winner is not None else None,
        }

    def _rotation_json(
        self, seen: MatchEntry | TableOf, facts: JsonObject, status: str
    ) -> RotationJson:
        """The `rotation` object of a rotation table (docs/protocol.md, rotation tables)."""
        table = seen.table
        queue: list[str] = list(facts["queue"])
        people: list[PersonJson] = []
        for place, person in enumerate(table.people):
            if person.free:
                continue
            name = person.name
            seat = table.seat_of_place(place)
            people.append(
                {
                    "name": name,
                    "bot": person.bot,
                    "connected": self.presence.person_connected(seen, place),
                    "seat": seat,
                    "waiting": queue.index(name) if name in queue else None,
                    "total": int(facts["totals"].get(name, 0)),
                    "wins": int(facts["wins"].get(name, 0)),
                }
            )
        live = status in ("open", "playing")
        return {
            "mode": table.rotation,
            "max_people": domain.ROTATION_MAX_PEOPLE,
            "can_join": live and len(people) < domain.ROTATION_MAX_PEOPLE,
            "people": people,
            "seated": [person.name for person in table.seats],
            "queue": queue,
            "last_change": facts["last_change"],
            "winner": facts["winner"],
        }

    def _json(
        self,
        seen: MatchEntry | TableOf,
        status: str,
        totals: tuple[int, int],
        games_played: int,
        version: int,
        ready: list[bool],
        ready_game: int | None,
    ) -> TableJson:
        table = seen.table
        return {
            "match_id": seen.match_id,
            "status": status,
            "preset": table.preset,
            "ruleset": table.ruleset,
            "seats": [
                {"name": s.name, "bot": s.bot, "connected": self.presence.connected(seen, i)}
                for i, s in enumerate(table.seats)
            ],
            "presence": [self.presence.seat_json(seen, i) for i in (0, 1)],
            "totals": list(totals),
            "games_played": games_played,
            "version": version,
            "created_at_ms": table.created_at_ms,
            "rematch_of": table.rematch_of,
            "rematch": table.rematch,
            "bot_pace": table.bot_pace,
            "ready": ready,
            "ready_game": ready_game,
            "rematch_offer": self._offer_json(table),
            "rematch_declined": (
                None
                if table.rematch_declined is None
                else {"seat": table.rematch_declined.seat, "at_ms": table.rematch_declined.at_ms}
            ),
            "rotation": None,
            "practice": table.practice,
        }

    def _idle(self, seen: MatchEntry | TableOf, status: str, last_event_ms: int) -> bool:
        """A match in play that nobody is at (docs/protocol.md, the lobby): no person's client
        connected (a bot, or a bot standing in for an absent owner, is nobody) and no event for
        `idle_after_s`. The lobby's "Live games" leaves such a table out, except for its own
        players; a finished match is never live (an abandoned one is finished at once)."""
        if status != "playing" or self.idle_after_ms is None:
            return False
        table = seen.table
        for place, person in enumerate(table.people):
            if person.bot is None and self.presence.person_connected(seen, place):
                return False
        quiet_since = max(last_event_ms, table.created_at_ms)
        return self.clock() - quiet_since >= self.idle_after_ms

    @staticmethod
    def _over_game(entry: MatchEntry) -> int | None:
        """The index of the game just over (what `ready` is about), None while one runs."""
        state = entry.state
        if state is None or state.game is None or not state.game.over:
            return None
        return int(state.game.game_index)

    @staticmethod
    def _offer_json(table: t.Table) -> RematchOfferJson | None:
        offer = table.rematch_offer
        if offer is None:
            return None
        expires = offer.at_ms + REMATCH_OFFER_MS
        return {"seat": offer.seat, "at_ms": offer.at_ms, "expires_at_ms": expires}

    def _announce(self, entry: MatchEntry) -> None:
        self.publisher.table_changed(entry.match_id, self.table_json(entry))

    # -- seats ---------------------------------------------------------------------------------

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
        for _attempt in range(_QUEUE_ATTEMPTS - 1):
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
                return self._queue(entry, name, bot, token)
            if bot is not None:
                raise SeatTakenError("A bot joins only the queue of a rotation table.")
            if seat is not None and seat not in free or not free:
                raise SeatTakenError(
                    "That seat is already taken." if free else "This table is full."
                )
            if rotation:
                _refuse_same_name(entry.table.people, name)
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
        if rotation:
            return {
                "match_id": match_id,
                "seat": seat,
                "seat_token": token,
                "waiting": False,
                "name": name,
            }
        return {"match_id": match_id, "seat": seat, "seat_token": token}

    def _queue(self, entry: MatchEntry, name: str, bot: str | None, by: str | None) -> SeatTicket:
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
                message = f"bot is one of {', '.join(self.autopilot.bot_names())}, not {bot!r}."
                raise InvalidInputError(message, details={"bot": [message]})
            self._check_bot_for_queue(entry, by)
            taken = {person.name for person in people}
            name = next(
                f"{bot} bot{'' if n == 1 else f' {n}'}"
                for n in range(1, 9)
                if f"{bot} bot{'' if n == 1 else f' {n}'}" not in taken
            )
        _refuse_same_name(people, name)
        token = t.new_seat_token() if bot is None else None
        self._enqueue(entry, name, None if token is None else t.hash_token(token), bot)
        self._announce(entry)
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

    def _enqueue(
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
        for _attempt in range(_QUEUE_ATTEMPTS):
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

    def join_table(
        self, client: str, match_id: str, token: str | None, last_version: int | None
    ) -> tuple[JoinAck, TableJson | None]:
        """A client (a Socket.IO session) comes to a table: as the person a token is (seated,
        or waiting at a rotation table) or, without one, as a spectator. It leaves the table it
        was at, enters this one's room with its backlog (`Reads.join`), and a person's coming
        is told the whole table (`connect`). Returns the acknowledgement, and the table's
        lobby view for a spectator, whom nobody else needs to hear of."""
        found = self.person_for(match_id, token)
        self.leave(client)
        place = None if found is None else found[0]
        # Snapshot or backlog, as the person's seat is once the match is caught up (a seat
        # change may come with it): the viewer the client was filed under.
        joined = self.reads.join(client, match_id, place, last_version)
        table = None
        if place is not None:
            self.connect(match_id, place)  # tells the whole table, the client included
        else:
            table = self.table(match_id)
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
                self.repo.append_table(entry, t.SEAT_RETURNED, self._placed(entry, data, place))
                if seat is not None:
                    entry.bots.pop(seat, None)
            self._announce(entry)

    def disconnect(self, match_id: str, place: int) -> None:
        entry = self.repo.find(match_id)
        with entry.lock:
            self.presence.disconnect(match_id, place)
            self._announce(entry)

    @staticmethod
    def _placed(entry: MatchEntry, data: JsonObject, place: int) -> JsonObject:
        """A seat event's data, naming the person's place at a rotation table
        (`server.model.tables`: a seat is not a person there); unchanged elsewhere, where a place is
        its seat."""
        return data if entry.table.rotation == "off" else {**data, "place": place}

    def claim(self, match_id: str, token: str, what: str) -> Done:
        """Claim the seat of an opponent away past the grace period: a bot takes it over
        (`what == "bot"`; its owner may come back) or it is resigned for, game after game."""
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
                self.repo.append_table(entry, t.BOT_SEATED, self._placed(entry, data, place))
            else:
                data = {"seat": absent, "at_ms": at_ms}
                self.repo.append_table(entry, t.SEAT_FORFEITED, self._placed(entry, data, place))
                self.autopilot.follow_up(entry)
            self._announce(entry)
        return {"ok": True}

    # -- between games, and the end of a match -------------------------------------------------

    def next_game(self, match_id: str, token: str) -> Done:
        """The seat is ready for the next game; it starts once both seats are (a bot always is,
        an owner away past the grace period too: `Autopilot.ready`)."""
        entry = self.repo.find(match_id)
        with entry.lock:
            self.repo.refresh(entry)  # first: a seat change folded now moves the token's person
            seat = entry.authorised_seat(token)
            state = entry.state
            if state is None or state.finished or state.game is None or not state.game.over:
                raise NotPlayingError("There is no finished game to go on from.")
            game = state.game.game_index
            table = entry.table
            if not (table.ready_game == game and seat in table.ready):
                data = {"seat": seat, "game_index": game, "at_ms": self.clock()}
                self.repo.append_table(entry, t.NEXT_GAME_READY, data)
            self.autopilot.follow_up(entry)
            self._announce(entry)
        return {"ok": True}

    def abandon(self, match_id: str, token: str) -> Done:
        """The `abandon` message: `abandon_command` under the command id `abandon-<version>`."""
        self.abandon_command(match_id, token, None)
        return {"ok": True}

    def abandon_command(self, match_id: str, token: str, command_id: str | None) -> CommandDone:
        """The seat's owner gives up the whole match (docs/spec/rules.md §8): the domain's
        `Abandon` resigns the game in play, if any, and ends the match at once, in one batch; no
        game nobody plays is dealt. A conflict with another writer is read and decided again.
        The one way to abandon: the `abandon` message (`command_id` None: `abandon-<version>`)
        and a `command` `{"do": "abandon"}` (server.services.commands, under its own command id, so
        that a repeat is acknowledged as a duplicate) both come here."""
        entry = self.repo.find(match_id)
        with entry.lock:
            self.repo.refresh(entry)
            if command_id is not None and command_id in entry.commands:
                return {"ok": True, "version": entry.commands[command_id], "duplicate": True}
            if entry.table.rotation != "off":
                self._leave_queue(entry, token)
                return {"ok": True, "version": entry.version}
            seat = entry.authorised_seat(token)
            for _attempt in range(_QUEUE_ATTEMPTS):
                if command_id is not None and command_id in entry.commands:  # written elsewhere
                    return {"ok": True, "version": entry.commands[command_id], "duplicate": True}
                if not entry.live:
                    raise NotPlayingError("There is no match in play at this table.")
                command = domain.Act(domain.Abandon(seat), self.clock())
                try:
                    events = domain.decide(entry.state, command)
                except domain.RulesError as exc:
                    raise NotPlayingError(exc.message) from None
                if self.repo.append_match(entry, events, command_id or f"abandon-{entry.version}"):
                    break
                self.repo.refresh(entry, with_table=False)  # another writer moved on: again
            else:
                raise CommandConflictError("The table kept changing: abandon again.")
            self._announce(entry)
            return {"ok": True, "version": entry.version}

    def _leave_queue(self, entry: MatchEntry, token: str) -> Done:
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
        self._announce(entry)
        return {"ok": True}


def _refuse_same_name(people: Iterable[t.Seat], name: str) -> None:
    """One name per person at a rotation table, compared by confusable skeleton (domain.names):
    `Ann` and Cyrillic `Аnn` are one name, so nobody passes for someone else in the queue."""
    for person in people:
        if person.name is not None and same_name(person.name, name):
            raise SeatTakenError(
                f"{person.name} is already at this table: choose another name.",
                taken_by=person.name,
            )
