"""The app factory: Flask + Flask-SocketIO wired to one store and one GameService."""

from __future__ import annotations

import logging

from flask import Flask, Response, jsonify
from flask_socketio import SocketIO
from werkzeug.exceptions import HTTPException

from eventstore import EventStore, open_store
from server import health, http, patches, sockets
from server.config import ServerConfig
from server.errors import ServerError
from server.players import players_bp
from server.records.http import records_bp
from server.service import GameService

log = logging.getLogger(__name__)


def create_app(
    config: ServerConfig | None = None, store: EventStore | None = None
) -> tuple[Flask, SocketIO]:
    config = config or ServerConfig()
    if store is None:
        # Called directly from greenthreads for every backend: under eventlet psycopg waits
        # greenly (server.patches), and tpool would break the green locks (docs/eventstore.md).
        store = open_store(config.store_url)
    app = Flask(__name__, static_folder=None)
    app.config["SECRET_KEY"] = config.secret_key
    app.config["CRAPETTE"] = config
    app.config["JSON_SORT_KEYS"] = False
    socketio = SocketIO(
        app,
        async_mode=config.async_mode,
        cors_allowed_origins="*",
        serializer=patches.json_packet(),
    )
    # Built in the order each needs the other: the publisher (rooms) first, the service's parts
    # from it, then the routes and handlers that call them.
    publisher = sockets.SocketPublisher(socketio)
    service = GameService(
        store, publisher=publisher, grace_s=config.grace_s, bot_delay_s=config.bot_delay_s
    )
    app.extensions["crapette"] = service
    app.extensions["crapette_store"] = store
    app.register_blueprint(http.bp)
    app.register_blueprint(health.health_bp)
    health.add_check(app, "store", store.last_position)
    app.register_blueprint(players_bp)
    app.register_blueprint(records_bp)
    _register_error_pages(app)
    sockets.register(socketio, publisher, service)
    service.autopilot.start()
    return app, socketio


def _register_error_pages(app: Flask) -> None:
    @app.errorhandler(ServerError)
    def server_error(exc: ServerError) -> tuple[Response, int]:
        return jsonify(exc.to_json()), exc.http_status

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> tuple[Response, int]:
        code = {404: "not_found", 405: "invalid", 400: "invalid"}.get(exc.code or 500, "http")
        return jsonify({"code": code, "message": exc.description or exc.name}), exc.code or 500

    @app.errorhandler(Exception)
    def internal_error(exc: Exception) -> tuple[Response, int]:
        log.exception("request failed", exc_info=exc)
        return jsonify({"code": "internal", "message": "The server failed on this request."}), 500


def start_clock(socketio: SocketIO, service: GameService, tick_s: float) -> None:
    """The one background task: time-outs and bot moves, both derived from event times."""

    def loop() -> None:
        while True:
            socketio.sleep(tick_s)
            try:
                service.autopilot.tick()
            except Exception:
                log.exception("clock tick failed")

    socketio.start_background_task(loop)
