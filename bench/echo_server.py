"""The ceiling for `crapette bench server`: a bare Flask-SocketIO server that answers each
`command` with one `updates` message (a batch of one update) to the sender's room and an ack,
doing nothing else.

It carries the same traffic as the game server, so that the ratio measures the server's own work:
clients join a room in pairs (two seats of a table), each update goes to both of them and carries
a view of the size and shape of a real one (read from a JSON file), packets are encoded with
the game server's codec and handlers are registered on the Socket.IO server directly, as the game
server's are (no Flask request context per message).

With `stock` after the view file it is the same echo on Flask-SocketIO's defaults instead
(its JSON codec, a greenthread per handler, none of server/runtime/patches.py's transport changes):
the transport as the server had it before they were made (`crapette bench server --stock-echo`).

Run as `python -m bench.echo_server PORT [eventlet|threading] [VIEW_JSON_FILE] [stock]`."""

from __future__ import annotations

import sys

from server.runtime import patches

if __name__ == "__main__" and (len(sys.argv) < 3 or sys.argv[2] == "eventlet"):
    patches.eventlet_first()  # before flask is imported

import json  # noqa: E402
from typing import Any  # noqa: E402

from flask import Flask  # noqa: E402
from flask_socketio import SocketIO  # noqa: E402


def create_echo_app(
    async_mode: str, view: Any = None, stock: bool = False
) -> tuple[Flask, SocketIO]:
    app = Flask(__name__)
    if stock:
        socketio = SocketIO(app, async_mode=async_mode)
    else:
        # The game server's options (server/app.py): its codec, handlers run as their messages
        # are read.
        socketio = SocketIO(
            app, async_mode=async_mode, serializer=patches.serializer(), async_handlers=False
        )
    versions: dict[str, int] = {}

    @app.get("/ping")
    def ping() -> str:
        return "pong"

    def join_table(sid: str, payload: Any) -> dict[str, Any]:
        room = str(payload.get("match_id")) if isinstance(payload, dict) else sid
        socketio.server.enter_room(sid, room, namespace="/")
        return {"ok": True, "version": versions.get(room, 0)}

    def command(sid: str, payload: Any) -> dict[str, Any]:
        room = str(payload.get("match_id")) if isinstance(payload, dict) else sid
        versions[room] = version = versions.get(room, 0) + 1
        update = {"match_id": room, "version": version, "event": payload, "view": view}
        socketio.emit("updates", {"match_id": room, "updates": [update]}, to=room)
        return {"ok": True, "version": version}

    socketio.server.on("join_table", join_table, namespace="/")
    socketio.server.on("command", command, namespace="/")

    return app, socketio


def main() -> None:
    port = int(sys.argv[1])
    async_mode = sys.argv[2] if len(sys.argv) > 2 else "eventlet"
    view = None
    if len(sys.argv) > 3:
        with open(sys.argv[3], encoding="utf-8") as file:
            view = json.load(file)
    stock = sys.argv[4:5] == ["stock"]
    app, socketio = create_echo_app(async_mode, view, stock)
    socketio.run(
        app,
        host="127.0.0.1",
        port=port,
        log_output=False,
        allow_unsafe_werkzeug=True,
        # The same socket options as the real server (stock: none of them).
        **({} if stock else patches.run_options(async_mode)),
    )


if __name__ == "__main__":
    main()
