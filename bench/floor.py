"""The game's own work per move, with no transport: the floor under figure (c) of
`crapette bench server`.

In this process, with no socket and no event loop, N bot-vs-bot tables (the benchmark's games: the
beginner preset, each seat choosing the same way `BenchClient.my_action` does) are played through
the server's own parts: the command's schema (`schemas.load_command`), `PlayerCommands.execute`
(seat check, decide, the store's append, the fold, the autopilot's follow-up) and, for each seat's
room, the batch of updates `SocketPublisher.applied` sends, built and encoded as a Socket.IO packet
with the server's codec. Only those calls are timed (process CPU time); choosing the next action is
not.

What the timed calls cost per move is the least the game server can spend on a move over what
the echo server spends on a message, whatever its transport does: the echo reads, decodes,
encodes and writes a message of the same size too, but decides, stores, folds and builds
nothing."""

from __future__ import annotations

import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from bench.players import choose_action

ROOMS = (0, 1)  # the two seats' rooms, as in the benchmark (no spectator)


class _Encoding:
    """A publisher that does what `SocketPublisher.applied` does for the two seat rooms up to
    the socket: build each room's batch and encode its packet. Keeps each seat's last view."""

    def __init__(self) -> None:
        from server.runtime import patches

        self.packet = patches.json_packet()
        self.views: dict[tuple[str, int], dict[str, Any]] = {}

    def applied(self, match_id: str, items: list[Any]) -> None:
        from socketio.packet import EVENT

        from server.readmodels.updates import batch_updates

        for viewer, batch in zip(ROOMS, batch_updates(match_id, items, ROOMS), strict=True):
            message = {"match_id": match_id, "updates": batch}
            # Encoded as the server's emit encodes it (part of the work measured); the bytes
            # would go to the socket, which the floor leaves out.
            self.packet(EVENT, data=["updates", message], namespace="/").encode()
            view = batch[-1]["view"]
            if view is not None:
                self.views[(match_id, viewer)] = view

    def table_changed(self, match_id: str, table: Any) -> None:
        pass

    def joined(self, *args: Any, **kwargs: Any) -> None:
        pass

    def leave(self, client: str) -> None:
        return None


def game_work(
    tables: int = 100, moves: int = 20_000, warmup: int = 2_000, cold_mib: int = 0
) -> dict[str, Any]:
    """Play `warmup` and then `moves` moves round-robin over `tables` tables; the CPU time of
    the timed calls per move, in ms. With `cold_mib`, that many MiB are written before each
    move (untimed), so that each starts with its data and code out of the core's own caches, as
    a server's command does at human pace, when other processes ran since the last one."""
    from eventstore import open_store
    from server.app import _store_options
    from server.entrypoints import schemas
    from server.errors import ServerError
    from server.service import GameService

    with tempfile.TemporaryDirectory(prefix="crapette-floor-") as tmp:
        url = f"sqlite:///{Path(tmp) / 'floor.sqlite3'}?synchronous=NORMAL"
        store = open_store(url, **_store_options(url))
        publisher = _Encoding()
        service = GameService(store, publisher=publisher)
        seats: list[tuple[str, str, int]] = []
        for index in range(tables):
            opened = service.openings.open_table(
                name=f"a{index}", preset="beginner", match="points:10000"
            )
            joined = service.seats.join_seat(opened["match_id"], f"b{index}")
            for ticket in (opened, joined):
                assert ticket["seat_token"] is not None and ticket["seat"] is not None
                seats.append((ticket["match_id"], ticket["seat_token"], ticket["seat"]))
        sweep = bytearray(cold_mib * 1024 * 1024)
        ones = b"\x01" * (len(sweep) // 64)
        played = cpu = 0.0
        refused = 0
        done = 0
        while done < warmup + moves:
            progressed = False
            for match_id, token, seat in seats:
                if done == warmup + moves:
                    break
                view = publisher.views.get((match_id, seat))
                if view is None:
                    continue
                if view.get("over"):
                    if not view.get("match_over"):
                        service.endings.next_game(match_id, token)
                    continue
                action = choose_action(view)
                if action is None:
                    continue
                payload = {
                    "match_id": match_id,
                    "seat_token": token,
                    "command_id": uuid.uuid4().hex,
                    "action": action,
                }
                if sweep:
                    sweep[::64] = ones  # one write per cache line
                started = time.process_time()
                try:
                    data = schemas.load_command(payload)
                    service.player_commands.execute(
                        data["match_id"], data["seat_token"], data["command_id"], data["action"]
                    )
                    ok = True
                except ServerError:
                    ok = False  # the server would answer it; the benchmark's games have none
                spent = time.process_time() - started
                progressed = True
                done += 1
                if done > warmup:
                    cpu += spent
                    played += 1
                    refused += not ok
            if not progressed:
                raise RuntimeError("no seat could move: the floor's games are stuck")
        store.close()
    return {
        "tables": tables,
        "cold_mib": cold_mib,
        "moves": int(played),
        "refused": refused,
        "cpu_ms_per_move": cpu * 1000 / played,
    }
