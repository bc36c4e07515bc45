"""The application service: every lobby and play operation, as load → fold → decide → append →
publish. It holds no rules: `domain.decide` judges, the store records, the publisher delivers."""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable
from typing import Any, Protocol

import domain
from domain.bots import make_bot
from domain.deal import new_seed
from eventstore import NewEvent
from server import schemas
from server import tables as t
from server.bots import RandomLegalBot
from server.errors import (
    CommandConflictError,
    CommandRefusedError,
    ForbiddenError,
    InvalidInputError,
    NotFoundError,
    NotPlayingError,
    SeatTakenError,
    TooEarlyError,
)
from server.matches import Applied, MatchEntry, MatchRepository, now_ms
from server.schemas import MATCH_ID_PATTERN
from server.updates import replay_frame, view_json

log = logging.getLogger(__name__)

# Bounds the follow-up loop (next game, forfeits): a bug must not spin forever.
_MAX_FOLLOW_UPS = 20


class Publisher(Protocol):
    def applied(self, entry: MatchEntry, items: list[Applied]) -> None: ...

    def table_changed(self, entry: MatchEntry) -> None: ...


class _NoPublisher:
    def applied(self, entry: MatchEntry, items: list[Applied]) -> None:
        pass

    def table_changed(self, entry: MatchEntry) -> None:
        pass


class _Preset(enum.Enum):
    """An option left to the preset (`open_table`'s default), unlike None, which is a value."""

    VALUE = "the preset's value"


class GameService:
    def __init__(
        self,
        store: Any,
        *,
        grace_s: float = 60.0,
        bot_delay_s: float = 0.4,
        clock: Callable[[], int] = now_ms,
    ) -> None:
        self.publisher: Publisher = _NoPublisher()
        self.repo = MatchRepository(store, lambda e, items: self.publisher.applied(e, items))
        self.grace_s = grace_s
        self.bot_delay_s = bot_delay_s
        self.clock = clock
        self.started_ms = clock()
        # Presence is a fact of this process, not of the game: connections per seat, away times.
        self._connections: dict[tuple[str, int], int] = {}
        self._away_since: dict[tuple[str, int], int] = {}

    def start(self) -> None:
        """Load every table so that clocks, bots and the lobby resume after a restart."""
        self.repo.load_all()
        for entry in self.repo.entries():
            with entry.lock:
                try:
                    self._follow_up(entry)
                except Exception:
                    log.exception("cannot resume match %s", entry.match_id)

    # -- lobby ---------------------------------------------------------------------------------

    @staticmethod
    def presets() -> list[dict[str, Any]]:
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
        options: dict[str, Any] | None = None,
        match: str | None = None,
        move_time_limit_s: int | None | _Preset = _Preset.VALUE,
        bot: str | None = None,
        seat: int | None = None,
        rematch_of: str | None = None,
    ) -> dict[str, Any]:
        ruleset_json = {"preset": preset, **(options or {})}
        if match is not None:
            ruleset_json["match"] = match
        if move_time_limit_s is not _Preset.VALUE:  # None: no limit, whatever the preset says
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
        self._seated(match_id, seat)
        with entry.lock:
            self._follow_up(entry)
        return {"match_id": match_id, "seat": seat, "seat_token": token}

    def join_seat(self, match_id: str, name: str, seat: int | None = None) -> dict[str, Any]:
        entry = self._entry(match_id)
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
            self._seated(match_id, seat)
            self.publisher.table_changed(entry)
            self._follow_up(entry)
        return {"match_id": match_id, "seat": seat, "seat_token": token}

    def rematch(self, match_id: str, token: str) -> dict[str, Any]:
        entry = self._entry(match_id)
        with entry.lock:
            seat = self._seat_of(entry, token)
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
            self.publisher.table_changed(entry)
        return created

    def tables(self, include_all: bool = False) -> list[dict[str, Any]]:
        horizon = self.clock() - 3_600_000
        result = []
        for entry in sorted(self.repo.entries(), key=lambda e: -e.table.created_at_ms):
            if include_all or entry.status != "finished" or entry.last_event_ms >= horizon:
                result.append(self.table_json(entry))
        return result

    def table(self, match_id: str) -> dict[str, Any]:
        return self.table_json(self._entry(match_id))

    def table_json(self, entry: MatchEntry) -> dict[str, Any]:
        state = entry.state
        table = entry.table
        return {
            "match_id": entry.match_id,
            "status": entry.status,
            "preset": table.preset,
            "ruleset": table.ruleset,
            "seats": [
                {"name": s.name, "bot": s.bot, "connected": self._connected(entry, i)}
                for i, s in enumerate(table.seats)
            ],
            "presence": [self._presence(entry, i) for i in (0, 1)],
            "totals": list(state.totals) if state is not None else [0, 0],
            "games_played": state.games_played if state is not None else 0,
            "version": entry.version,
            "created_at_ms": table.created_at_ms,
            "rematch_of": table.rematch_of,
            "rematch": table.rematch,
        }

    # -- presence ------------------------------------------------------------------------------

    def _seated(self, match_id: str, seat: int) -> None:
        """A seat just taken over HTTP counts as away only from now, not from the server's
        start: its owner's socket has not had time to connect."""
        if self._connections.get((match_id, seat), 0) == 0:
            self._away_since[(match_id, seat)] = self.clock()

    def _connected(self, entry: MatchEntry, seat: int) -> bool:
        if entry.table.seats[seat].bot is not None:
            return True
        return self._connections.get((entry.match_id, seat), 0) > 0

    def _presence(self, entry: MatchEntry, seat: int) -> dict[str, Any]:
        if self._connected(entry, seat) or entry.table.seats[seat].free:
            return {
                "connected": not entry.table.seats[seat].free,
                "away_since_ms": None,
                "claimable_at_ms": None,
            }
        since = self._away_since.get((entry.match_id, seat), self.started_ms)
        return {
            "connected": False,
            "away_since_ms": since,
            "claimable_at_ms": since + int(self.grace_s * 1000),
        }

    def connect(self, match_id: str, seat: int) -> None:
        """A seat's client joined; a returning owner sends away the bot that stood in for him."""
        entry = self._entry(match_id)
        with entry.lock:
            key = (match_id, seat)
            self._connections[key] = self._connections.get(key, 0) + 1
            self._away_since.pop(key, None)
            mine = entry.table.seats[seat]
            if mine.takeover or mine.forfeited:
                self.repo.append_table(
                    entry, t.SEAT_RETURNED, {"seat": seat, "at_ms": self.clock()}
                )
                entry.bots.pop(seat, None)
            self.publisher.table_changed(entry)

    def disconnect(self, match_id: str, seat: int) -> None:
        entry = self._entry(match_id)
        with entry.lock:
            key = (match_id, seat)
            self._connections[key] = max(0, self._connections.get(key, 0) - 1)
            if self._connections[key] == 0:
                self._away_since[key] = self.clock()
            self.publisher.table_changed(entry)

    # -- play ----------------------------------------------------------------------------------

    def seat_for(self, match_id: str, token: str | None) -> int | None:
        """The seat a token owns at this table; None for a spectator (no token)."""
        entry = self._entry(match_id)
        return None if token is None else self._seat_of(entry, token)

    def execute(
        self, match_id: str, token: str, command_id: str, action_json: dict[str, Any]
    ) -> dict[str, Any]:
        entry = self._entry(match_id)
        seat = self._seat_of(entry, token)
        action = self._parse_action(action_json)
        if getattr(action, "seat", None) != seat:
            raise ForbiddenError(f"This seat token plays seat {seat}, not seat {action.seat}.")
        # Each seat's ids live in a namespace of their own (the schema forbids ":"), so a client
        # can neither replay the server's own command ids nor swallow the opponent's command.
        command_id = f"c{seat}:{command_id}"
        with entry.lock:
            if command_id in entry.commands:
                return {"ok": True, "version": entry.commands[command_id], "duplicate": True}
            version = self._act(entry, action, command_id)
            self._follow_up(entry)
        return {"ok": True, "version": version}

    @staticmethod
    def _parse_action(action_json: dict[str, Any]) -> Any:
        data = {k: v for k, v in action_json.items() if k != "text"}
        try:
            return domain.action_from_json(data)
        except (domain.DomainError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise InvalidInputError(
                f"Not an action: {exc}", details={"action": [str(exc)]}
            ) from None

    def _act(self, entry: MatchEntry, action: Any, command_id: str) -> int:
        """Decide on the cached state and append at its version: the store's version check is
        what guards against another writer, so the common case costs no read. On a conflict, or
        a refusal while the store has moved on, read the newer events and decide once more."""
        for attempt in range(2):
            if attempt:
                self.repo.refresh(entry, with_table=False)
            if command_id in entry.commands:
                return entry.commands[command_id]
            try:
                events = self._decide_act(entry, action)
            except (NotPlayingError, CommandRefusedError):
                if attempt == 0 and self.repo.has_newer(entry):
                    continue
                raise
            if self.repo.append_match(entry, events, command_id):
                return entry.version
        self.repo.refresh(entry, with_table=False)  # show everyone what the other writer did
        raise CommandConflictError(
            "The position changed while your command was judged; send it again."
        )

    def _decide_act(self, entry: MatchEntry, action: Any) -> list[Any]:
        if not entry.live:
            started = entry.state is not None
            raise NotPlayingError("The match is over." if started else "The match has not started.")
        try:
            events: list[Any] = domain.decide(
                entry.state, domain.Act(action=action, at_ms=self.clock())
            )
        except domain.RulesError as exc:
            raise CommandRefusedError(exc.message, rule=exc.rule) from None
        return events

    def _decide_system(self, entry: MatchEntry, command: Any, command_id: str) -> bool:
        """A command of the server itself (start, next game, time-out, bot move)."""
        try:
            events = domain.decide(entry.state, command)
        except domain.RulesError as exc:
            log.warning("match %s: %s refused: %s", entry.match_id, command_id, exc)
            return False
        return self.repo.append_match(entry, events, command_id)

    def _follow_up(self, entry: MatchEntry) -> None:
        """What the server does on its own after any change: start the match once both seats are
        taken, start the next game after one ends, resign for a forfeited seat."""
        if entry.table.imported:
            return
        for _ in range(_MAX_FOLLOW_UPS):
            table, state = entry.table, entry.state
            if state is None:
                if not table.full:
                    return
                players = (table.seats[0].name or "?", table.seats[1].name or "?")
                command: Any = domain.StartMatch(
                    match_id=entry.match_id,
                    ruleset=domain.Ruleset.from_json(table.ruleset),
                    players=players,
                    at_ms=self.clock(),
                )
                if not self._decide_system(entry, command, "start-match"):
                    return
                continue
            if state.finished:
                return
            game = state.game
            if game is None or game.over:
                command = domain.StartGame(seed=new_seed(), packs=None, at_ms=self.clock())
                if not self._decide_system(entry, command, f"start-game-{entry.version}"):
                    return
                continue
            forfeited = [i for i, s in enumerate(table.seats) if s.forfeited]
            if forfeited:
                action = domain.Resign(seat=forfeited[0])
                if not self._decide_system(
                    entry, domain.Act(action=action, at_ms=self.clock()), f"forfeit-{entry.version}"
                ):
                    return
                continue
            return

    def claim(self, match_id: str, token: str, what: str) -> dict[str, Any]:
        entry = self._entry(match_id)
        with entry.lock:
            seat = self._seat_of(entry, token)
            absent = 1 - seat
            if not entry.live:
                raise NotPlayingError("There is no match in play at this table.")
            if entry.table.seats[absent].bot is not None:
                raise ForbiddenError("A bot plays that seat; there is nothing to claim.")
            presence = self._presence(entry, absent)
            if presence["connected"] or self.clock() < presence["claimable_at_ms"]:
                raise TooEarlyError(
                    "Your opponent is still within the grace period.",
                    claimable_at_ms=presence["claimable_at_ms"],
                )
            at_ms = self.clock()
            if what == "bot":
                data = {"seat": absent, "bot": "steady", "takeover": True, "at_ms": at_ms}
                self.repo.append_table(entry, t.BOT_SEATED, data)
            else:
                self.repo.append_table(entry, t.SEAT_FORFEITED, {"seat": absent, "at_ms": at_ms})
                self._follow_up(entry)
            self.publisher.table_changed(entry)
        return {"ok": True}

    # -- server-side time: clocks and bots -----------------------------------------------------

    def tick(self) -> None:
        """Called periodically: time-outs from event times, and seated bots' moves."""
        now = self.clock()
        for entry in self.repo.entries():
            if not entry.live:
                continue
            try:
                with entry.lock:
                    self._tick_entry(entry, now)
            except Exception:  # one broken match must not stop every clock
                log.exception("tick failed for match %s", entry.match_id)

    def _tick_entry(self, entry: MatchEntry, now: int) -> None:
        state = entry.state
        game = state.game
        if game is None or game.over:
            self._follow_up(entry)
            return
        limit = state.ruleset.move_time_limit_s
        expired = limit and now >= game.move_started_at_ms + limit * 1000
        if expired and entry.failed_timeout_version != entry.version:
            action = domain.TimeOut(seat=game.to_move)
            command = domain.Act(action=action, at_ms=now)
            if self._decide_system(entry, command, f"timeout-{entry.version}"):
                self._follow_up(entry)
            else:
                entry.failed_timeout_version = entry.version
            return
        bots = entry.table.bot_seats()
        if not bots or now - entry.last_event_ms < self.bot_delay_s * 1000:
            return
        for seat in sorted(bots, key=lambda s: s != game.to_move):
            action = self._bot_action(entry, seat, bots[seat])
            if action is None:
                continue
            if isinstance(action, domain.Call) and not self._call_due(entry, seat, action, now):
                return
            command = domain.Act(action=action, at_ms=now)
            if self._decide_system(entry, command, f"bot-{seat}-{entry.version}"):
                self._follow_up(entry)
            else:  # a refused bot action: the stand-in plays this position instead
                entry.failed_bot_version = entry.version
            return

    def _call_due(self, entry: MatchEntry, seat: int, call: Any, now: int) -> bool:
        """A bot shouts "Crapette!" only after the delay its strength hints (a person needs a
        moment to spot a fault), scaled by the table's bot pace (`bot_delay_s`, 0.4 s = as
        hinted). The call is chosen once per position, so a bot that misses calls keeps missing."""
        pending = entry.pending_call
        if pending is None or pending[0] != entry.version or pending[1] != seat:
            delay_hint = getattr(entry.bots.get(seat), "delay_hint_ms", None)
            hint = delay_hint(call) if delay_hint is not None else 0
            due = entry.last_event_ms + int(hint * self.bot_delay_s / 0.4)
            pending = entry.pending_call = (entry.version, seat, call, due)
        return now >= pending[3]

    def _bot_action(self, entry: MatchEntry, seat: int, name: str) -> Any:
        """The seated bot's choice; a bot that fails (or failed here before) is replaced by the
        random legal-action bot for this position, so that a table never hangs on a bot."""
        pending = entry.pending_call
        if pending is not None and pending[0] == entry.version and pending[1] == seat:
            return pending[2]  # a call already decided on, waiting for its moment
        view = domain.view(entry.state, seat)
        bot = entry.bots.get(seat)
        if bot is None:
            try:
                bot = make_bot(name)
            except Exception:  # e.g. a stored table naming a bot this server does not have
                log.exception(
                    "bot %s cannot be made in match %s: a stand-in plays", name, entry.match_id
                )
                bot = RandomLegalBot()
            entry.bots[seat] = bot  # made once, whatever it is
        if entry.failed_bot_version != entry.version:
            try:
                return bot.choose(view)
            except Exception:
                log.exception("bot %s failed in match %s", name, entry.match_id)
                entry.failed_bot_version = entry.version
        return RandomLegalBot().choose(view)

    # -- reading -------------------------------------------------------------------------------

    def history(self, entry: MatchEntry, after_version: int) -> list[Applied]:
        """The events after `after_version` with the state after each (for a reconnect)."""
        return self.repo.replay_states(entry)[after_version:]

    def view_at(self, match_id: str, version: int | None) -> dict[str, Any]:
        entry = self._entry(match_id)
        with entry.lock:
            self.repo.refresh(entry)
            current = entry.version
            if version is None or version == current:
                return {"version": current, "view": view_json(entry.state, None)}
            if version > current:
                raise NotFoundError(f"The match has only {current} events, not {version}.")
            if version == 0:
                return {"version": 0, "view": None}
            applied = self.repo.replay_states(entry)[version - 1]
        return {"version": version, "view": view_json(applied.state, None)}

    def replay(self, match_id: str) -> dict[str, Any]:
        entry = self._entry(match_id)
        with entry.lock:
            self.repo.refresh(entry)
            states = self.repo.replay_states(entry)
            # An imported match never goes on here, and its record held every card: all shown.
            finished = entry.state is not None and entry.state.finished
            live = not finished and not entry.table.imported
            now = entry.state
        return {
            "match_id": match_id,
            "live": live,
            "version": len(states),
            "players": [s.name for s in entry.table.seats],
            "ruleset": entry.table.ruleset,
            "frames": [
                replay_frame(a.version, a.at_ms, a.event, a.state, now, show_all=not live)
                for a in states
            ],
        }

    # -- helpers -------------------------------------------------------------------------------

    def entry(self, match_id: str) -> MatchEntry:
        return self._entry(match_id)

    def _entry(self, match_id: str) -> MatchEntry:
        if not MATCH_ID_PATTERN.fullmatch(match_id):  # a path parameter straight from a URL
            raise NotFoundError(f"There is no table {match_id!r}.")
        entry = self.repo.get(match_id)
        if entry is None:
            raise NotFoundError(f"There is no table {match_id}.")
        return entry

    @staticmethod
    def _seat_of(entry: MatchEntry, token: str) -> int:
        seat = entry.table.seat_of(token)
        if seat is None:
            raise ForbiddenError("This seat token does not belong to this table.")
        return seat
