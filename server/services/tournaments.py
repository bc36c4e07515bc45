"""Running a tournament: what the director asks, what a player claims, and what the server does
on its own (docs/tournaments.md § Running one).

The rules are the domain's (`domain.tournament.decide`); this part only loads, decides, appends
(`TournamentRepository`), and acts on what the events mean for the tables:

- a `RoundPaired` opens each table of the round (`Openings.open_arranged`), with the match id the
  pairing names, each player in his seat with the token he claimed (a bot as that bot), so the
  match starts by itself;
- a finished match is reported from its own events (`result_of_match`: its `MatchWon`), never
  typed; the result that completes a round pairs the next one, the last one ends the tournament;
- a `MatchForfeited` (a no-show or a withdrawal the director recorded) forfeits the absent seat
  at that table (`SeatForfeited`), so its match ends too instead of waiting for ever.

A table is opened again if a process stopped between the pairing and the opening (`tick`), and
a report lost in a conflict is read again: every step can be repeated and lands once.

The desk's tables are its own (issue 38): a table's id is predictable (`<tid>-r1-t1`), so a
table of that id the desk did not open (an import, say, with a result of its choosing) is never
adopted: the desk seats, forfeits and reports only at a table whose opening names this
tournament (`server.model.tables.opened_by`), and logs once any other it finds under one of its
ids (docs/tournaments.md § The desk's own tables)."""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable

import domain
from domain import tournament as tm
from eventstore import ConcurrencyError, NewEvent
from records.streams import match_stream
from server.adapters.matches import MatchEntry, MatchRepository
from server.adapters.tournament_repo import TournamentEntry, TournamentRepository
from server.errors import (
    CommandRefusedError,
    ForbiddenError,
    InvalidInputError,
    NotFoundError,
    SeatTakenError,
    quoted,
)
from server.model import desk as d
from server.model import tables as t
from server.services.openings import Openings
from server.wire.payloads import JsonObject

log = logging.getLogger(__name__)

# How often the server looks at the open tables of the tournaments in play.
TICK_S = 0.5


def new_tournament_id() -> str:
    return "t-" + secrets.token_hex(4)


def refused(exc: domain.RulesError) -> CommandRefusedError:
    return CommandRefusedError(exc.message, rule=exc.rule)


class Tournaments:
    def __init__(
        self,
        repo: TournamentRepository,
        matches: MatchRepository,
        openings: Openings,
        *,
        clock: Callable[[], int],
    ) -> None:
        self.repo = repo
        self.matches = matches
        self.openings = openings
        self.clock = clock
        self._next_tick = 0.0
        self._loaded = False
        self._foreign: set[str] = set()  # the tables of another opener, logged once each

    # -- the director ----------------------------------------------------------------------

    def create(
        self,
        *,
        name: str,
        format: tm.Format,
        rounds: int | None,
        preset: str,
        match: str | None,
        players: list[JsonObject],
        bot_pace: str = t.DEFAULT_BOT_PACE,
    ) -> JsonObject:
        """A new tournament with its players registered (a bot may take a seat); its first
        round waits for the director's `start`. Returns the id and the director's token,
        which is given here once and kept nowhere but as its hash."""
        ruleset_json: JsonObject = {"preset": preset}
        if match is not None:
            ruleset_json["match"] = match
        try:
            ruleset = domain.Ruleset.from_json(ruleset_json)
        except (domain.RulesetError, TypeError, ValueError) as exc:
            raise InvalidInputError(str(exc), details={"preset": [str(exc)]}) from None
        token = t.new_seat_token()
        tournament_id = new_tournament_id()
        at_ms = self.clock()
        commands: list[tm.TournamentCommand] = [
            tm.CreateTournament(tournament_id, name, format, rounds, ruleset, at_ms)
        ]
        commands += [tm.RegisterPlayer(p["name"], at_ms, p.get("bot")) for p in players]
        events: list[tm.TournamentEvent] = []
        state: tm.TournamentState | None = None
        try:
            for command in commands:
                new, state = tm.decide_and_fold(state, command)
                events += new
        except tm.TournamentError as exc:
            raise refused(exc) from None
        opened = {"director_hash": t.hash_token(token), "bot_pace": bot_pace, "at_ms": at_ms}
        self.repo.create(tournament_id, events, [NewEvent(d.DESK_OPENED, opened)])
        return {"tournament_id": tournament_id, "director_token": token}

    def direct(self, tournament_id: str, token: str, action: str, **args: object) -> JsonObject:
        """One of the director's orders: `start` (pair the first round), `withdraw` (a player
        leaves: `name`), `no_show` (`match_id`, `absent`: the names who did not come),
        `finish` (now between rounds; else once the round in play is over), `release` (free
        a claimed `name`)."""
        entry = self.repo.find(tournament_id)
        with entry.lock:
            self.repo.refresh(entry)
            if not entry.desk.is_director(token):
                raise ForbiddenError("Only the tournament's director may do that.")
            if action == "release":
                return self._release(entry, str(args["name"]))
            at_ms = self.clock()
            command: tm.TournamentCommand
            if action == "start":
                if entry.state.started:
                    raise SeatTakenError("The tournament has started already.")
                command = tm.PairRound(at_ms)
            elif action == "withdraw":
                command = tm.WithdrawPlayer(str(args["name"]), at_ms)
            elif action == "no_show":
                absent = tuple(str(name) for name in args["absent"])  # type: ignore[attr-defined]
                command = tm.RecordNoShow(str(args["match_id"]), absent, at_ms)
            elif action == "finish":
                if entry.state.started and not entry.state.round_complete:
                    return self._finish_later(entry)
                command = tm.FinishTournament(at_ms)
            else:
                raise InvalidInputError(f"No such order: {quoted(action)}.")
            events = self._decide(entry, command)
            self._follow(entry, events)
        return {"ok": True, "version": entry.version}

    def _finish_later(self, entry: TournamentEntry) -> JsonObject:
        """End once the round in play is over: its last result finishes the tournament
        instead of pairing the next round (`_follow`)."""
        if not entry.desk.finish_requested:
            self.repo.append_desk(entry, d.FINISH_REQUESTED, {"at_ms": self.clock()})
        return {"ok": True, "version": entry.version, "finish_requested": True}

    def _release(self, entry: TournamentEntry, name: str) -> JsonObject:
        if name not in entry.desk.claims:
            raise NotFoundError(f"Nobody has claimed {name}.")
        self.repo.append_desk(entry, d.CLAIM_RELEASED, {"name": name, "at_ms": self.clock()})
        return {"ok": True, "version": entry.version}

    # -- a player --------------------------------------------------------------------------

    def claim(self, tournament_id: str, name: str) -> JsonObject:
        """ "This is me": the person is given a seat token for a registered name nobody has
        claimed yet; it seats him at each of his tables, the open one included."""
        entry = self.repo.find(tournament_id)
        with entry.lock:
            self.repo.refresh(entry)
            entrant = entry.state.entrant(name)
            if entrant is None:
                raise NotFoundError(f"{name} is not a player of this tournament.")
            if entrant.bot is not None:
                raise ForbiddenError(f"{name} is a bot: it plays by itself.")
            if name in entry.desk.claims:
                raise SeatTakenError(
                    f"{name} has been claimed already: the director can free the name."
                )
            token = t.new_seat_token()
            data = {"name": name, "token_hash": t.hash_token(token), "at_ms": self.clock()}
            if not self.repo.append_desk(entry, d.NAME_CLAIMED, data):
                raise SeatTakenError("The tournament changed meanwhile: try again.")
            table = entry.state.next_table(name)
            if table is not None and self._own_table(entry, table.match_id) is not None:
                seat = table.players.index(name)
                fact = {"seat": seat, "name": name, "token_hash": data["token_hash"]}
                self.openings.arranged_fact(table.match_id, t.SEAT_TAKEN, fact)
        return {"tournament_id": tournament_id, "name": name, "player_token": token}

    def me(self, tournament_id: str, token: str) -> JsonObject:
        """Who a player's token is, and his next table (None between rounds or at the end)."""
        entry = self.repo.find(tournament_id)
        with entry.lock:
            self.repo.refresh(entry)
        name = entry.desk.name_of(token)
        if name is None:
            raise ForbiddenError("This token belongs to no player of this tournament.")
        table = entry.state.next_table(name)
        next_table = None
        if table is not None:
            found = entry.state.pairing(table.match_id)
            seat = table.players.index(name)
            next_table = {
                "round": found[0] if found else entry.state.current_round,
                "table": table.table,
                "match_id": table.match_id,
                "seat": seat,
                "opponent": table.players[1 - seat],
                "table_url": f"/table/{table.match_id}",
            }
        return {"name": name, "next_table": next_table}

    # -- on its own ------------------------------------------------------------------------

    def tick(self) -> None:
        """About twice a second: report the finished matches of the tournaments in play, pair
        what follows, open tables a stopped process left unopened."""
        now = time.monotonic()
        if now < self._next_tick:
            return
        self._next_tick = now + TICK_S
        if not self._loaded:  # after a restart: the tournaments still in play
            for tournament_id in self.repo.ids():
                entry = self.repo.find(tournament_id)
                if entry.state.finished:
                    self.repo.forget(tournament_id)
            self._loaded = True
        for entry in self.repo.entries():
            if entry.state.finished:
                continue
            try:
                with entry.lock:
                    self.repo.refresh(entry)
                    self._report_finished(entry)
            except Exception:
                log.exception("tournament %s: tick failed", entry.tournament_id)

    def _report_finished(self, entry: TournamentEntry) -> None:
        state = entry.state
        for table in state.open_tables:
            if self.matches.get(table.match_id) is None:
                self._open(entry, table)
            match = self._own_table(entry, table.match_id)
            if match is None:  # not open yet, or not the desk's: nothing to report from it
                continue
            with match.lock:
                self.matches.refresh(match, with_table=False)
                played = match.state
            result = None if played is None else tm.result_of_match(played, self.clock())
            if result is None:
                continue
            try:
                events = self._decide(entry, result)
            except CommandRefusedError as exc:  # reported meanwhile by another process
                log.info("tournament %s: %s", entry.tournament_id, exc.message)
                continue
            self._follow(entry, events)

    def _decide(
        self, entry: TournamentEntry, command: tm.TournamentCommand
    ) -> list[tm.TournamentEvent]:
        try:
            events, _ = self.repo.decide(entry, lambda s: (tm.decide(s, command), None))
        except tm.TournamentError as exc:
            raise refused(exc) from None
        return events

    def _follow(self, entry: TournamentEntry, events: list[tm.TournamentEvent]) -> None:
        """What the tables must do after `events` (folded already); then the next round when
        this one is complete."""
        for event in events:
            if isinstance(event, tm.RoundPaired):
                for table in event.tables:
                    if table.match_id not in entry.state.results:
                        self._open(entry, table)
            elif isinstance(event, tm.MatchForfeited):
                self._forfeit_seats(entry, event)
        state = entry.state
        total = state.total_rounds
        if state.finished or not state.started or not state.round_complete:
            return
        if total is not None and state.current_round >= total:
            return
        if entry.desk.finish_requested:  # the director ended it after this round
            self._follow(entry, self._decide(entry, tm.FinishTournament(self.clock())))
            return
        try:
            more = self._decide(entry, tm.PairRound(self.clock()))
        except CommandRefusedError as exc:  # too few players left, say: the director decides
            log.info("tournament %s: no next round (%s)", entry.tournament_id, exc.message)
            return
        self._follow(entry, more)

    def _open(self, entry: TournamentEntry, table: tm.Pairing) -> None:
        seats: list[tuple[str, JsonObject]] = []
        for seat, name in enumerate(table.players):
            entrant = entry.state.entrant(name)
            if entrant is not None and entrant.bot is not None:
                seats.append((t.BOT_SEATED, {"seat": seat, "bot": entrant.bot, "name": name}))
                continue
            # Not claimed yet: a token nobody holds keeps the seat his until he claims it.
            held = entry.desk.claims.get(name) or t.hash_token(t.new_seat_token())
            seats.append((t.SEAT_TAKEN, {"seat": seat, "name": name, "token_hash": held}))
        ruleset = entry.state.ruleset.to_json()
        if self.matches.get(table.match_id) is not None:  # opened already: whose is it?
            self._own_table(entry, table.match_id)
            return
        if self.matches.store.stream_version(match_stream(table.match_id)) > 0:
            # A match of that id with no table (an import stopped half-way): not the desk's.
            self._not_own(entry, table.match_id, "a match with no table")
            return
        try:
            self.openings.open_arranged(
                table.match_id, ruleset, seats, entry.desk.bot_pace, entry.tournament_id
            )
        except ConcurrencyError:
            # There already: opened by another process (or an earlier attempt), which is the
            # desk's table; or by something else, which the desk leaves alone.
            self._own_table(entry, table.match_id)

    def _own_table(self, entry: TournamentEntry, match_id: str) -> MatchEntry | None:
        """The match of one of the desk's tables, if this tournament's desk opened it; None if
        nothing is there yet, or a table the desk did not open (logged once: the director
        can record the pairing as a no-show of both)."""
        match = self.matches.get(match_id)
        if match is None or t.opened_by(match.table, entry.tournament_id):
            return match
        self._not_own(entry, match_id, "an imported match" if match.table.imported else "")
        return None

    def _not_own(self, entry: TournamentEntry, match_id: str, what: str) -> None:
        if match_id in self._foreign:
            return
        self._foreign.add(match_id)
        log.warning(
            "tournament %s: table %s was not opened by this tournament (%s): its seats and "
            "result are not the tournament's",
            entry.tournament_id,
            match_id,
            what or "another opener",
        )

    def _forfeit_seats(self, entry: TournamentEntry, event: tm.MatchForfeited) -> None:
        match = self._own_table(entry, event.match_id)
        if match is None:
            return
        players = [seat.name for seat in match.table.seats]
        for name in event.absent:
            if name in players and match.live:
                fact = {"seat": players.index(name), "abandoned": True}
                self.openings.arranged_fact(event.match_id, t.SEAT_FORFEITED, fact)
