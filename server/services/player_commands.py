"""A seated player's command, from its JSON to the store: parse the action, check the seat token
owns the action's seat, decide on the cached state, append at its version (once more after a
conflict), then let the autopilot do what follows (the next game, …). The appended events reach
the players through the repository's publisher.

Command ids make a command idempotent: a command id already applied answers with the version it
led to, and appends nothing."""

from __future__ import annotations

from collections.abc import Callable

import domain
from server.adapters.matches import MatchEntry, MatchRepository
from server.errors import (
    CommandConflictError,
    CommandRefusedError,
    ForbiddenError,
    InvalidInputError,
    NotPlayingError,
    clipped,
)
from server.services.autopilot import Autopilot
from server.wire.payloads import CommandDone, JsonObject


class PlayerCommands:
    def __init__(
        self,
        repo: MatchRepository,
        autopilot: Autopilot,
        *,
        clock: Callable[[], int],
        abandon: Callable[[str, str, str], CommandDone] | None = None,
    ) -> None:
        """`abandon(match_id, token, command_id)`: where `{"do": "abandon"}` goes
        (`Endings.abandon_command`, the one way to abandon a match; None: decided here)."""
        self.repo = repo
        self.autopilot = autopilot
        self.clock = clock
        self.abandon = abandon

    def execute(
        self, match_id: str, token: str, command_id: str, action_json: JsonObject
    ) -> CommandDone:
        entry = self.repo.find(match_id)
        seat = self.repo.authorise(entry, token)
        action = action_of_command(action_json)
        if action.seat != seat:
            raise ForbiddenError(f"This seat token plays seat {seat}, not seat {action.seat}.")
        # Each seat's ids live in a namespace of their own (the schema forbids ":"), so a client
        # can neither replay the server's own command ids nor swallow the opponent's command.
        command_id = f"c{seat}:{command_id}"
        if isinstance(action, domain.Abandon) and self.abandon is not None:
            return self.abandon(match_id, token, command_id)  # as the `abandon` message
        with entry.lock:
            if command_id in entry.commands:
                return {"ok": True, "version": entry.commands[command_id], "duplicate": True}
            version = self._act(entry, action, command_id, token)
            self.autopilot.follow_up(entry)
        return {"ok": True, "version": version}

    def _act(self, entry: MatchEntry, action: domain.Action, command_id: str, token: str) -> int:
        """Decide on the cached state and append at its version: the store's version check is
        what guards against another writer, so the common case costs no read. On a conflict, or
        a refusal while the store has moved on, read the newer events and decide once more.

        The token's seat is checked again under the lock, after each read: at a rotation table
        the events read may move its person (`SeatsRotated`), and the seat he left is someone
        else's now (docs/spec/rules.md §10)."""
        for attempt in range(2):
            if attempt:
                self.repo.refresh(entry, with_table=False)
            if command_id in entry.commands:
                return entry.commands[command_id]
            if entry.authorised_seat(token) != action.seat:
                raise ForbiddenError(f"This seat token no longer plays seat {action.seat}.")
            try:
                events = self._decide(entry, action)
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

    def _decide(self, entry: MatchEntry, action: domain.Action) -> list[domain.Event]:
        if not entry.live:
            started = entry.state is not None
            raise NotPlayingError("The match is over." if started else "The match has not started.")
        try:
            return domain.decide(entry.state, domain.Act(action=action, at_ms=self.clock()))
        except domain.RulesError as exc:
            # The move's piles and card (what the player tried) and the message's own cards and
            # piles (why it is refused): a client words the refusal from these codes.
            params = {**refusal_params(entry, action), **exc.params}
            raise CommandRefusedError(
                exc.message, rule=exc.rule, reason=exc.reason, params=params
            ) from None


def action_of_command(action_json: JsonObject) -> domain.Action:
    """The domain action of a command's JSON (its display `text`, if echoed back, ignored),
    an `invalid` error for JSON no action reads from (`domain.action_from_json` does the
    reading; `domain.parse_action` reads the text notation)."""
    data = {k: v for k, v in action_json.items() if k != "text"}
    try:
        return domain.action_from_json(data)
    except (domain.DomainError, ValueError, KeyError, TypeError, AttributeError) as exc:
        said = clipped(str(exc), 200)  # a domain message quotes at most 40 characters anyway
        raise InvalidInputError(f"Not an action: {said}", details={"action": [said]}) from None


def refusal_params(entry: MatchEntry, action: domain.Action) -> JsonObject:
    """What a client needs to say a refusal in its own words (docs/protocol.md): the action's
    kind, and for a move its piles and the card on top of the source, if the player sees it."""
    kind = action.to_json().get("do")
    params: JsonObject = {"do": kind}
    if isinstance(action, domain.Move) and entry.state is not None:
        params["from"], params["to"] = action.src, action.dst
        seen = domain.view(entry.state, action.seat).piles.get(action.src) or [None]
        params["card"] = seen[-1]
    return params
