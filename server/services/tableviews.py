"""The lobby's views of a table (`TableViews`): the lobby's list from the lobby projection
(`tables`, `row_json`), a loaded table's view (`table_json`), and `announce`, which every other
part of the lobby (`Openings`, `Seats`, `Clients`, `Rematches`, `Endings`, `RotationQueue`) calls
once it changed a table, so that the table hears of it with its new view (docs/protocol.md)."""

from __future__ import annotations

from collections.abc import Callable

import domain
from server.adapters.matches import MatchEntry, MatchRepository
from server.adapters.presence import Presence, TableOf
from server.adapters.publisher import Publisher
from server.model import tables as t
from server.readmodels.lobbyview import LobbyProjection, LobbyRow, new_session_facts
from server.services.autopilot import Autopilot
from server.wire.payloads import (
    GameInPlayJson,
    JsonObject,
    PersonJson,
    RematchOfferJson,
    RotationJson,
    TableJson,
)

# A live table with nobody at it for this long is idle: out of the lobby's lists (issue 39: a
# table left a minute earlier was still listed).
IDLE_AFTER_S = 60.0


class TableViews:
    def __init__(
        self,
        repo: MatchRepository,
        presence: Presence,
        autopilot: Autopilot,
        publisher: Publisher,
        projection: LobbyProjection,
        *,
        clock: Callable[[], int],
        idle_after_s: float | None = IDLE_AFTER_S,
    ) -> None:
        self.presence = presence
        self.autopilot = autopilot
        self.publisher = publisher
        self.projection = projection
        self.repo = repo
        self.clock = clock
        self.idle_after_ms = None if idle_after_s is None else int(idle_after_s * 1000)

    def tables(self, include_all: bool = False) -> list[TableJson]:
        """The lobby's list, newest first, from the lobby projection (no match is loaded for
        it): finished tables only for an hour and expired ones not at all, unless
        `include_all`. A practice table (play on from here) is private: never listed, reached
        only by its link (issue 39)."""
        self.projection.catch_up()
        horizon = self.clock() - 3_600_000
        result = []
        for row in sorted(self.projection.all_rows(), key=lambda r: -r.table.created_at_ms):
            if row.table.practice is not None and not include_all:
                continue
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
        loaded = self.repo.peek(table.match_id) if row.status == "playing" else None
        table_json["game"] = game_json(loaded)
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
        table_json["game"] = game_json(entry if entry.status == "playing" else None)
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
        """A live table that nobody is at (docs/protocol.md, the lobby): no person's client
        connected (a bot, or a bot standing in for an absent owner, is nobody) for
        `idle_after_s` since the last one left (or since the table opened), however its bots
        play on. The lobby leaves such a table out of "Live games" and "Open tables" (an open
        table its host left: "Hugo v free seat"), except for its own players; a finished match
        is never live (an abandoned one is finished at once). `last_event_ms` is not used: a
        bot's moves are nobody being there (issue 39)."""
        del last_event_ms
        if status not in ("playing", "open") or self.idle_after_ms is None:
            return False
        table = seen.table
        for place, person in enumerate(table.people):
            if (
                person.bot is None
                and not person.free
                and self.presence.person_connected(seen, place)
            ):
                return False
        quiet_since = max(self.presence.left_ms(seen), table.created_at_ms)
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
        expires = offer.at_ms + t.REMATCH_OFFER_MS
        return {"seat": offer.seat, "at_ms": offer.at_ms, "expires_at_ms": expires}

    def announce(self, entry: MatchEntry) -> None:
        self.publisher.table_changed(entry.match_id, self.table_json(entry))


def game_json(entry: MatchEntry | None) -> GameInPlayJson | None:
    """The game in play at a loaded match: its number, its turn and each seat's cards left
    (reserves, hands, turned card and waste: what a player must still get rid of)."""
    state = entry.state if entry is not None else None
    game = state.game if state is not None else None
    if game is None or game.over:
        return None
    piles = domain.visible_piles(game)
    left = [
        sum(
            len(cards)
            for name, cards in piles.items()
            if name[0] in OWN_PILES and name[1:] == str(seat)
        )
        for seat in (0, 1)
    ]
    return {"index": int(game.game_index), "turn": int(game.turn_number), "cards_left": left}


OWN_PILES = "RQHIJXW"  # a seat's reserves, hands, turned card and waste (docs/spec/rules.md §1)
