"""Player statistics over HTTP: `GET /api/players[?since=…]`, `GET /api/players/<name>`, the
Glicko-2 ratings `GET /api/ratings` (the leaderboard) and `GET /api/ratings/<name>` (one
name's rating after each rated match, for its graph; `GET /api/ratings?name=<name>` the same
as a state, `"rated": false` rather than a 404), and the page `/players` (every name) /
`/players/<name>` (one player) that shows them.

The index of every match's figures (server/readmodels/stats.py) lives as long as the app; a request
reads only the matches that changed since the last one, and pauses between matches so that a first
read of a big store does not hold up the games being played.
"""

from __future__ import annotations

import importlib.resources
import time

from flask import Blueprint, Response, current_app, jsonify, request, send_from_directory

from server.errors import InvalidInputError, NotFoundError, ServerError, quoted
from server.readmodels.ratings import Ratings
from server.readmodels.ratings_index import RatingsIndex
from server.readmodels.stats import PlayerStats, StatsIndex, since_ms

players_bp = Blueprint("players", __name__)

MAX_NAME = 200  # longer than any seat name the lobby accepts


@players_bp.errorhandler(ServerError)
def _server_error(exc: ServerError) -> tuple[Response, int]:
    return exc.reply()


def _players() -> dict[str, PlayerStats]:
    index: StatsIndex = current_app.extensions.setdefault("crapette_stats", StatsIndex())
    store = current_app.extensions["crapette_store"]
    # time.sleep(0) hands the loop to other greenthreads under eventlet (a plain yield otherwise).
    return index.players(store, _since(), pause=lambda: time.sleep(0))


def _since() -> int | None:
    raw = request.args.get("since")
    if raw is None or raw == "":
        return None
    try:
        return since_ms(raw)
    except ValueError:
        raise InvalidInputError(
            "since is a date like 2026-11-29.", details={"since": ["Not a date."]}
        ) from None


@players_bp.get("/api/players")
def all_players() -> Response:
    return jsonify({"players": [stats.to_json() for stats in _players().values()]})


@players_bp.get("/api/players/<path:name>")
def one_player(name: str) -> Response:
    if len(name) > MAX_NAME:
        raise NotFoundError("Nobody of that name played here.")
    stats = _players().get(name)
    if stats is None:
        raise NotFoundError(f"Nobody called {quoted(name)} played here.")
    return jsonify(stats.to_json())


def _ratings() -> Ratings:
    index: RatingsIndex = current_app.extensions.setdefault("crapette_ratings", RatingsIndex())
    store = current_app.extensions["crapette_store"]
    return index.ratings(store, pause=lambda: time.sleep(0))


@players_bp.get("/api/ratings")
def leaderboard() -> Response:
    """The leaderboard; with `?name=` one name's rating as a state (`"rated": false` for a
    name without a rated match, never a 404: the players page asks this way)."""
    name = request.args.get("name")
    if name is None:
        return jsonify({"ratings": _ratings().leaderboard()})
    found = None if len(name) > MAX_NAME else _ratings().history_json(name)
    return jsonify({"name": name, "rated": False} if found is None else {**found, "rated": True})


@players_bp.get("/api/ratings/<path:name>")
def rating_history(name: str) -> Response:
    found = None if len(name) > MAX_NAME else _ratings().history_json(name)
    if found is None:
        raise NotFoundError(f"{quoted(name)} has no rated match here.")
    return jsonify(found)


@players_bp.get("/players")
@players_bp.get("/players/<path:name>")
def players_page(name: str | None = None) -> Response:
    return send_from_directory(str(importlib.resources.files("web")), "players.html")
