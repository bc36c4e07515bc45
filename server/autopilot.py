"""What the server does on its own, with no player's command: it starts the match once both
seats are taken and the next game after one ends, resigns for a forfeited seat (`follow_up`), and
on every clock tick times out a mover past the move time limit and plays the seated bots (`tick`).

Each of these is a command of the server itself, judged by `domain.decide` like a player's and
appended under a command id of its own (`start-game-<version>`, `bot-<seat>-<version>`, …), so two
processes acting on the same position write it once."""

from __future__ import annotations

import logging
from collections.abc import Callable

import domain
from domain.bots import make_bot
from domain.deal import new_seed
from server.bots import RandomLegalBot
from server.matches import MatchEntry, MatchRepository, SeatBot

log = logging.getLogger(__name__)

# Bounds the follow-up loop (next game, forfeits): a bug must not spin forever.
_MAX_FOLLOW_UPS = 20


class Autopilot:
    def __init__(
        self, repo: MatchRepository, *, bot_delay_s: float, clock: Callable[[], int]
    ) -> None:
        self.repo = repo
        self.bot_delay_s = bot_delay_s
        self.clock = clock

    def start(self) -> None:
        """Load every table so that clocks, bots and the lobby resume after a restart."""
        self.repo.load_all()
        for entry in self.repo.entries():
            with entry.lock:
                try:
                    self.follow_up(entry)
                except Exception:
                    log.exception("cannot resume match %s", entry.match_id)

    # -- after any change ----------------------------------------------------------------------

    def follow_up(self, entry: MatchEntry) -> None:
        """What the server does on its own after any change: start the match once both seats are
        taken, start the next game after one ends, resign for a forfeited seat. The caller holds
        `entry.lock`."""
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
            if game is None or game.over:
                command = domain.StartGame(seed=new_seed(), packs=None, at_ms=self.clock())
                if not self.decide(entry, command, f"start-game-{entry.version}"):
                    return
                continue
            forfeited = [i for i, s in enumerate(table.seats) if s.forfeited]
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
        return self.repo.append_match(entry, events, command_id)

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
        if state is None:  # not live: `tick` skips it
            return
        game = state.game
        if game is None or game.over:
            self.follow_up(entry)
            return
        limit = state.ruleset.move_time_limit_s
        expired = limit and now >= game.move_started_at_ms + limit * 1000
        if expired and entry.failed_timeout_version != entry.version:
            timeout = domain.Act(action=domain.TimeOut(seat=game.to_move), at_ms=now)
            if self.decide(entry, timeout, f"timeout-{entry.version}"):
                self.follow_up(entry)
            else:
                entry.failed_timeout_version = entry.version
            return
        bots = entry.table.bot_seats()
        if not bots or now - entry.last_event_ms < self.bot_delay_s * 1000:
            return
        for seat in sorted(bots, key=lambda s: s != game.to_move):
            action = self._bot_action(entry, state, seat, bots[seat])
            if action is None:
                continue
            if isinstance(action, domain.Call) and not self._call_due(entry, seat, action, now):
                return
            command = domain.Act(action=action, at_ms=now)
            if self.decide(entry, command, f"bot-{seat}-{entry.version}"):
                self.follow_up(entry)
            else:  # a refused bot action: the stand-in plays this position instead
                entry.failed_bot_version = entry.version
            return

    def _call_due(self, entry: MatchEntry, seat: int, call: domain.Call, now: int) -> bool:
        """A bot shouts "Crapette!" only after the delay its strength hints (a person needs a
        moment to spot a fault), scaled by the table's bot pace (`bot_delay_s`, 0.4 s = as
        hinted). The call is chosen once per position, so a bot that misses calls keeps missing."""
        pending = entry.pending_call
        if pending is None or pending[0] != entry.version or pending[1] != seat:
            bot = entry.bots.get(seat)
            hint = bot.delay_hint_ms(call) if bot is not None else 0
            due = entry.last_event_ms + int(hint * self.bot_delay_s / 0.4)
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
