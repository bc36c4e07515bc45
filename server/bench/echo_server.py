"""The ceiling for `crapette bench server`: a bare Flask-SocketIO server that answers each
`command` with one `update` to the sender and an ack, doing nothing else.

Run as `python -m server.bench.echo_server PORT [eventlet|threading]`."""

from __future__ import annotations

import sys

if __name__ == "__main__" and (len(sys.argv) < 3 or sys.argv[2] == "eventlet"):
    import eventlet  # must patch before flask is imported

    eventlet.monkey_patch()

from typing import Any  # noqa: E402

from flask import Flask, request  # noqa: E402
from flask_socketio import SocketIO  # noqa: E402

from server.netopts import run_options  # noqa: E402


def _sid() -> str:
    sid: str = request.sid  # type: ignore[attr-defined]
    return sid


def create_echo_app(async_mode: str) -> tuple[Flask, SocketIO]:
    app = Flask(__name__)
    socketio = SocketIO(app, async_mode=async_mode)
    versions: dict[str, int] = {}

    @app.get("/ping")
    def ping() -> str:
        return "pong"

    @socketio.on("command")
    def command(payload: Any) -> dict[str, Any]:
        sid = _sid()
        versions[sid] = versions.get(sid, 0) + 1
        update = {"match_id": "echo", "version": versions[sid], "event": payload, "view": None}
        socketio.emit("update", update, to=sid)
        return {"ok": True, "version": versions[sid]}

    return app, socketio


def main() -> None:
    port = int(sys.argv[1])
    async_mode = sys.argv[2] if len(sys.argv) > 2 else "eventlet"
    app, socketio = create_echo_app(async_mode)
    socketio.run(
        app,
        host="127.0.0.1",
        port=port,
        log_output=False,
        allow_unsafe_werkzeug=True,
        **run_options(async_mode),  # the same socket options as the real server
    )


if __name__ == "__main__":
    main()
