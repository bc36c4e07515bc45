"""Between games and the end of a match (`Endings`): a seat ready for the next game, and
its owner abandoning the whole match (docs/spec/rules.md §8; at a rotation table, a waiting
person leaving for good: `RotationQueue.leave`)."""

from __future__ import annotations

from collections.abc import Callable

import domain
from server.adapters.matches import MatchRepository
from server.errors import CommandConflictError, NotPlayingError
from server.model import tables as t
from server.services.autopilot import Autopilot
from server.services.queue import REREAD_ATTEMPTS, RotationQueue
from server.services.tableviews import TableViews
from server.wire.payloads import CommandDone, Done


class Endings:
    def __init__(
        self,
        repo: MatchRepository,
        autopilot: Autopilot,
        queue: RotationQueue,
        views: TableViews,
        *,
        clock: Callable[[], int],
    ) -> None:
        self.repo = repo
        self.autopilot = autopilot
        self.queue = queue
        self.views = views
        self.clock = clock

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
            self.views.announce(entry)
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
        and a `command` `{"do": "abandon"}` (server.services.player_commands, under its own command
        id, so that a repeat is acknowledged as a duplicate) both come here."""
        entry = self.repo.find(match_id)
        with entry.lock:
            self.repo.refresh(entry)
            if command_id is not None and command_id in entry.commands:
                return {"ok": True, "version": entry.commands[command_id], "duplicate": True}
            if entry.table.rotation != "off":
                self.queue.leave(entry, token)
                return {"ok": True, "version": entry.version}
            seat = entry.authorised_seat(token)
            for _attempt in range(REREAD_ATTEMPTS):
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
            self.views.announce(entry)
            return {"ok": True, "version": entry.version}
