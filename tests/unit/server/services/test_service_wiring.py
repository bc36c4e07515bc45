"""The service's parts are wired through constructor arguments only: the publisher given to
`GameService` is the one every part tells, about the events it folded and the tables it changed,
with nothing assigned afterwards."""

from __future__ import annotations

import domain
from eventstore import open_store
from server.adapters.matches import Applied
from server.adapters.publisher import CatchUp
from server.service import GameService
from server.wire.payloads import TableJson
from tests.seat_kit import token_of
from tests.unit.server.clock import Clock


class RecordingPublisher:
    def __init__(self) -> None:
        self.applied_items: list[tuple[str, list[Applied]]] = []
        self.tables: list[tuple[str, TableJson]] = []
        self.joins: list[tuple[str, str, int | None, CatchUp]] = []
        self.sessions: dict[str, tuple[str, int | None]] = {}  # client: (match, place)

    def applied(self, match_id: str, items: list[Applied]) -> None:
        self.applied_items.append((match_id, items))

    def table_changed(self, match_id: str, table: TableJson) -> None:
        self.tables.append((match_id, table))

    def joined(
        self,
        client: str,
        match_id: str,
        viewer: int | None,
        catch_up: CatchUp,
        person: tuple[int, str | None] | None = None,
    ) -> None:
        self.joins.append((client, match_id, viewer, catch_up))
        self.sessions[client] = (match_id, None if person is None else person[0])

    def leave(self, client: str) -> tuple[str, int | None] | None:
        return self.sessions.pop(client, None)


def test_every_part_tells_the_publisher_it_was_built_with() -> None:
    publisher = RecordingPublisher()
    service = GameService(open_store("memory://"), publisher=publisher, clock=Clock())
    assert service.publisher is publisher
    opened = service.openings.open_table(name="Ann", preset="beginner")
    match_id = opened["match_id"]
    assert publisher.applied_items == []  # one seat taken: nothing to play yet

    joined = service.seats.join_seat(match_id, "Bob")
    # The lobby announced the new seat with the table's lobby view ...
    announced = [table for mid, table in publisher.tables if mid == match_id]
    assert [s["name"] for s in announced[-1]["seats"]] == ["Ann", "Bob"]
    # ... and the autopilot started the match and its first game, folded and published in order.
    kinds = [type(a.event) for mid, items in publisher.applied_items for a in items]
    assert kinds[:2] == [domain.MatchStarted, domain.GameStarted]
    entry = service.repo.find(match_id)
    assert publisher.applied_items[-1][1][-1].version == entry.version

    # A player's command: its events reach the publisher with the state after each.
    state = entry.state
    assert state is not None and state.game is not None
    seat = state.game.to_move
    token = token_of(opened) if seat == opened["seat"] else token_of(joined)
    action = domain.legal_actions(state, seat)[0]
    before = len(publisher.applied_items)
    done = service.player_commands.execute(match_id, token, "wiring-0001", action.to_json())
    published = [a for _, items in publisher.applied_items[before:] for a in items]
    assert published[-1].version == done["version"] == entry.version
    assert published[-1].state is entry.state

    # A client coming and going changes the table's presence, announced the same way.
    service.clients.connect(match_id, seat)
    assert publisher.tables[-1][1]["presence"][seat]["connected"] is True
    service.clients.disconnect(match_id, seat)
    assert publisher.tables[-1][1]["presence"][seat]["connected"] is False

    # A client joining is sent what it missed through the same publisher: every update after
    # the version it gives, or a snapshot when it gives none (or one the match never reached).
    last = done["version"] - 1
    assert service.reads.join("sid-1", match_id, seat, last).version == entry.version
    client, mid, viewer, catch_up = publisher.joins[-1]
    assert (client, mid, viewer, catch_up.version) == ("sid-1", match_id, seat, entry.version)
    assert catch_up.backlog is not None
    assert [a.version for a in catch_up.backlog] == list(range(last + 1, entry.version + 1))
    for given in (None, entry.version + 5):
        assert service.reads.join("sid-2", match_id, None, given).version == entry.version
        assert publisher.joins[-1][3].backlog is None
        assert publisher.joins[-1][3].state is entry.state


def test_a_client_joining_a_table_is_one_lobby_call_that_leaves_its_last_table() -> None:
    """`join_table` (docs/protocol.md) as the service does it, with no socket: the client
    leaves the table it was at, gets its backlog, and a person's coming is announced."""
    publisher = RecordingPublisher()
    service = GameService(open_store("memory://"), publisher=publisher, clock=Clock())
    first = service.openings.open_table(name="Ann", preset="beginner")
    other = service.openings.open_table(name="Eve", preset="italian-four")
    match_id = first["match_id"]
    bob = service.seats.join_seat(match_id, "Bob")["seat_token"]
    version = service.repo.find(match_id).version

    ack, table = service.clients.join_table("sid-1", other["match_id"], None, None)
    assert table is not None and table["match_id"] == other["match_id"]  # for the spectator
    assert ack == {"ok": True, "match_id": other["match_id"], "seat": None, "version": 0}

    ack, table = service.clients.join_table("sid-1", match_id, bob, version)
    assert ack == {"ok": True, "match_id": match_id, "seat": 1, "version": version}
    assert table is None  # announced to the whole table instead:
    assert publisher.tables[-1][1]["presence"][1]["connected"] is True
    assert publisher.sessions == {"sid-1": (match_id, 1)}  # the spectator's table left

    ack, _table = service.clients.join_table("sid-2", other["match_id"], other["seat_token"], 0)
    assert ack == {
        "ok": True,
        "match_id": other["match_id"],
        "seat": 0,
        "version": service.repo.find(other["match_id"]).version,
        "waiting": False,
        "name": "Eve",
    }
    service.clients.leave("sid-1")
    assert publisher.tables[-1][0] == match_id
    assert publisher.tables[-1][1]["presence"][1]["connected"] is False
    assert publisher.sessions == {"sid-2": (other["match_id"], 0)}
