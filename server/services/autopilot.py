"""What the server does on its own, with no player's command: it starts the match once both
seats are taken and the next game once both players are ready for it, abandons for a forfeited
seat (`follow_up`), and on every clock tick times out a mover past the move time limit and plays
the seated bots at their table's pace (`tick`).

Each of these is a command of the server itself, judged by `domain.decide` like a player's and
appended under a command id of its own (`start-game-<version>`, `bot-<seat>-<version>`, …), so two
processes acting on the same position write it once."""

from __future__ import annotations

import logging
from collections.abc import Callable

import domain
from domain.bots import BOT_NAMES, make_bot
from server.adapters.leases import Leases
from server.adapters.matches import MatchEntry, MatchRepository, SeatBot
from server.adapters.presence import Presence, TableOf
from server.model import tables as t
from server.readmodels.lobbyview import LobbyProjection
from server.runtime.pauses import HOUSEKEEPING_SLICE_S, pause_point
from server.services.seeds import new_seed
from server.services.standin import RandomLegalBot
from server.services.testbots import TEST_BOTS, FaultyBot, make_test_bot

log = logging.getLogger(__name__)

# Bounds the follow-up loop (next game, forfeits): a bug must not spin forever.
_MAX_FOLLOW_UPS = 20


class Autopilot:
    """`bot_delay_s`: None plays each table's bot pace (`server.model.tables.BOT_PACES`); a number
    overrides every table's pace (tests and benchmarks run bots as fast as they like).
    `test_bots`: the test-only bots of `server.services.testbots` may be seated."""

    def __init__(
        self,
        repo: MatchRepository,
        presence: Presence,
        projection: LobbyProjection,
        *,
        bot_delay_s: float | None,
        clock: Callable[[], int],
        test_bots: bool = False,
        leases: Leases | None = None,
    ) -> None:
        self.repo = repo
        self.presence = presence
        self.projection = projection
        self.bot_delay_s = bot_delay_s
        self.clock = clock
        self.test_bots = test_bots
        # Which matches this process drives on its clock (all of them, alone; see
        # server.adapters.cluster).
        self.leases = leases if leases is not None else Leases()

    def bot_names(self) -> tuple[str, ...]:
        """The bots a table may seat here (the test-only ones only with `test_bots`)."""
        return BOT_NAMES + (TEST_BOTS if self.test_bots else ())

    def pace_s(self, entry: MatchEntry) -> float:
        """How long a seated bot waits after the last event before it acts."""
        if self.bot_delay_s is not None:
            return self.bot_delay_s
        return t.BOT_PACES.get(entry.table.bot_pace, t.BOT_PACES[t.DEFAULT_BOT_PACE])

    def ready(self, entry: MatchEntry) -> list[bool]:
        """Which seats are ready for the next game, once a game is over and the match is not:
        a seat that pressed "Next game", a bot, a forfeited seat, or an owner away past the grace
        period. [False, False] while a game runs."""
        state = entry.state
        if state is None or state.finished or state.game is None or not state.game.over:
            return [False, False]
        return self.ready_at(entry, state.game.game_index)

    def ready_at(self, seen: MatchEntry | TableOf, game: int | None) -> list[bool]:
        """As `ready`, for a table whose game `game` is over (None: none is over)."""
        if game is None:
            return [False, False]
        table = seen.table
        now = self.clock()
        result = []
        for seat, s in enumerate(table.seats):
            pressed = table.ready_game == game and seat in table.ready
            claimable = self.presence.seat_json(seen, seat)["claimable_at_ms"]
            away = claimable is not None and now >= claimable
            result.append(pressed or s.bot is not None or s.forfeited or away)
        return result

    def start(self) -> None:
        """Resume the tables still in play after a restart (their clocks, bots and follow-ups):
        the lobby projection, read from where it was saved and caught up, says which. Finished,
        expired and imported matches stay in the store until someone asks for one."""
        if not self.projection.load():
            log.info("lobby projection: reading the whole store once")
        self.projection.catch_up()
        self.projection.save()
        for row in self.projection.all_rows():
            if not row.live:
                continue
            match_id = row.table.match_id
            try:
                entry = self.repo.get(match_id)
                if entry is not None:
                    with entry.lock:
                        self.follow_up(entry)
            except Exception:  # one unreadable table must not keep the server from starting
                log.exception("cannot resume match %s", match_id)

    # -- after any change ----------------------------------------------------------------------

    def follow_up(self, entry: MatchEntry) -> None:
        """What the server does on its own after any change: start the match once both seats are
        taken, start the next game after one ends, abandon the match for a forfeited seat (resign
        his games at a rotation table). The caller holds `entry.lock`."""
        if entry.table.imported:
            return
        for _ in range(_MAX_FOLLOW_UPS):
            table, state = entry.table, entry.state
            if state is None:
                if not table.full:
                    return
                players = (table.seats[0].name or "?", table.seats[1].name or "?")
                command: domain.Command = domain.StartMatch(
                    match_id=entry.match_id,
                    ruleset=domain.Ruleset.from_json(table.ruleset),
                    players=players,
                    at_ms=self.clock(),
                )
                if not self.decide(entry, command, "start-match"):
                    return
                continue
            if state.finished:
                return
            game = state.game
            forfeited = [i for i, s in enumerate(table.seats) if s.forfeited]
            if forfeited and state.session is None and game is not None:
                # A claimed win, or a tournament's no-show, ends the match (issue 39): the
                # absent seat abandons it as `abandon` does, in one `MatchWon` saying it was
                # claimed, never game after game to the target. (Before the first deal there
                # is no game to resign: the first one is dealt, then abandoned.)
                claim = domain.Abandon(seat=forfeited[0], claimed=True)
                act = domain.Act(action=claim, at_ms=self.clock())
                self.decide(entry, act, f"forfeit-{entry.version}")
                return
            # At a rotation table (no match to abandon) the seat resigns game after game.
            forfeit = bool(forfeited)
            if game is not None and game.over and not forfeit and not all(self.ready(entry)):
                return  # the final position stays on the table until both press "Next game"
            if game is None or game.over:
                command = domain.StartGame(seed=new_seed(), packs=None, at_ms=self.clock())
                if not self.decide(entry, command, f"start-game-{entry.version}"):
                    return
                continue
            if forfeited:
                action = domain.Resign(seat=forfeited[0])
                if not self.decide(
                    entry, domain.Act(action=action, at_ms=self.clock()), f"forfeit-{entry.version}"
                ):
                    return
                continue
            return

    def decide(self, entry: MatchEntry, command: domain.Command, command_id: str) -> bool:
        """Decide and append a command of the server itself; False (logged) if the rules refuse
        it or another writer got there first."""
        try:
            events = domain.decide(entry.state, command)
        except domain.RulesError as exc:
            log.warning("match %s: %s refused: %s", entry.match_id, command_id, exc)
            return False
        if self.repo.append_match(entry, events, command_id):
            return True
        # Another writer got there first (a process that held this match until a moment ago
        # wrote its last command after this one took the lease): catch up now, so the next tick
        # decides on what the store holds instead of failing at the same stale version for ever.
        self.repo.refresh(entry)
        return False

    # -- server-side time: clocks and bots -----------------------------------------------------

    def tick(self) -> None:
        """Called periodically: time-outs from event times, and seated bots' moves."""
        now = self.clock()
        # A tick visits every live match, and deals or plays for some: with a few hundred
        # tables it took up to 5 ms, a stop of the loop ten times a second. It lets the loop
        # go every HOUSEKEEPING_SLICE_S (docs/benchmarks.md, figure (b)).
        pause = pause_point(HOUSEKEEPING_SLICE_S)
        for entry in self.repo.entries():
            pause()
            if entry.quiet == (entry.version, entry.table):
                continue  # a game with no clock and no bot: nothing to do until it moves
            if not entry.live or not self.leases.holds(entry.match_id):
                continue
            try:
                with entry.lock:
                    self._tick_entry(entry, now)
            except Exception:  # one broken match must not stop every clock
                log.exception("tick failed for match %s", entry.match_id)

    def _tick_entry(self, entry: MatchEntry, now: int) -> None:
        state = entry.state
        if state is None:  # not live: `tick` skips it
            return
        game = state.game
        if game is None or game.over:
            self.follow_up(entry)
            return
        limit = state.ruleset.move_time_limit_s
        expired = limit and now >= game.move_started_at_ms + limit * 1000
        if expired and entry.failed_timeout_version != entry.version:
            version = entry.version
            timeout = domain.Act(action=domain.TimeOut(seat=game.to_move), at_ms=now)
            if self.decide(entry, timeout, f"timeout-{version}"):
                self.follow_up(entry)
            else:  # refused at this version; after a race the entry has moved on, and is retried
                entry.failed_timeout_version = version
            return
        bots = entry.table.bot_seats()
        if not bots and not limit:
            # Only a move or a table event (a bot seated, a seat claimed) can give this game
            # something for the clock to do: skipped until then.
            entry.quiet = (entry.version, entry.table)
            return
        if not bots or now - entry.last_event_ms < self.pace_s(entry) * 1000:
            return
        if not all(self._at_table(entry, s, now) for s in (0, 1) if s not in bots):
            return  # nobody would see it: a bot waits for its opponent (page loading, reload)
        for seat in sorted(bots, key=lambda s: s != game.to_move):
            action = self._bot_action(entry, state, seat, bots[seat])
            if action is None:
                continue
            if isinstance(action, domain.Call) and not self._call_due(entry, seat, action, now):
                return
            version = entry.version
            command = domain.Act(action=action, at_ms=now)
            if self.decide(entry, command, f"bot-{seat}-{version}"):
                self.follow_up(entry)
            else:  # a refused bot action: the stand-in plays this position instead
                entry.failed_bot_version = version
            return

    def _at_table(self, entry: MatchEntry, seat: int, now: int) -> bool:
        """A person's seat counts as at the table while a client of his is connected, and again
        once he has been away past the grace period (then the table goes on without him)."""
        claimable = self.presence.seat_json(entry, seat)["claimable_at_ms"]
        return claimable is None or now >= claimable

    def _call_due(self, entry: MatchEntry, seat: int, call: domain.Call, now: int) -> bool:
        """A bot shouts "Crapette!" only after the delay its strength hints (a person needs a
        moment to spot a fault), whatever the table's pace; a server-wide `bot_delay_s` scales it
        (0.4 s = as hinted). The call is chosen once per position, so a bot that misses calls
        keeps missing."""
        pending = entry.pending_call
        if pending is None or pending[0] != entry.version or pending[1] != seat:
            bot = entry.bots.get(seat)
            hint = bot.delay_hint_ms(call) if bot is not None else 0
            scale = 1.0 if self.bot_delay_s is None else self.bot_delay_s / 0.4
            due = entry.last_event_ms + int(hint * scale)
            pending = entry.pending_call = (entry.version, seat, call, due)
        return now >= pending[3]

    def _bot_action(
        self, entry: MatchEntry, state: domain.MatchState, seat: int, name: str
    ) -> domain.Action | None:
        """The seated bot's choice; a bot that fails (or failed here before) is replaced by the
        random legal-action bot for this position, so that a table never hangs on a bot."""
        pending = entry.pending_call
        if pending is not None and pending[0] == entry.version and pending[1] == seat:
            return pending[2]  # a call already decided on, waiting for its moment
        view = domain.view(state, seat)
        bot: SeatBot | None = entry.bots.get(seat)
        if bot is None:
            try:
                bot = make_test_bot(name) if name in TEST_BOTS else make_bot(name)
            except Exception:  # e.g. a stored table naming a bot this server does not have
                log.exception(
                    "bot %s cannot be made in match %s: a stand-in plays", name, entry.match_id
                )
                bot = RandomLegalBot()
            entry.bots[seat] = bot  # made once, whatever it is
        if entry.failed_bot_version != entry.version:
            try:
                if isinstance(bot, FaultyBot):  # a test bot that reads the whole state
                    return bot.choose_in(state, seat, self.clock())
                return bot.choose(view)
            except Exception:
                log.exception("bot %s failed in match %s", name, entry.match_id)
                entry.failed_bot_version = entry.version
        return RandomLegalBot().choose(view)
