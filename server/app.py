"""The app factory: Flask + Flask-SocketIO wired to one store and one GameService."""

from __future__ import annotations

import atexit
import logging
import os
import signal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import Flask, Response, jsonify, request
from flask_socketio import SocketIO
from werkzeug.exceptions import HTTPException
from werkzeug.middleware.proxy_fix import ProxyFix

from eventstore import EventStore, open_store
from eventstore.sqlite import SQLiteStore
from server.adapters.checkpoint import start_checkpointer
from server.adapters.feed import AppendFeed
from server.adapters.socket_publisher import SocketPublisher
from server.adapters.workers import TIMEOUT_S as READ_TIMEOUT_S
from server.adapters.workers import FairShares, ReadWorkers, set_requester
from server.config import ServerConfig
from server.entrypoints import fairuse, health, security, sockets
from server.entrypoints import pages as http
from server.entrypoints.analysis_http import analysis_bp
from server.entrypoints.origins import SAFE_METHODS, OriginPolicy
from server.entrypoints.players_http import players_bp
from server.entrypoints.records_http import records_bp
from server.entrypoints.share_http import share_bp
from server.entrypoints.tournaments_http import tournaments_bp
from server.errors import OriginRefusedError, ServerError, quoted
from server.readmodels import updates
from server.runtime import patches
from server.service import GameService

if TYPE_CHECKING:  # imported only when a message queue is configured
    from server.adapters.cluster import Cluster

log = logging.getLogger(__name__)


def create_app(
    config: ServerConfig | None = None, store: EventStore | None = None
) -> tuple[Flask, SocketIO]:
    config = config or ServerConfig()
    store_given = store is not None
    if store is None:
        # Called directly from greenthreads for every backend: under eventlet psycopg waits
        # greenly (server.runtime.patches), and tpool would break the green locks
        # (docs/eventstore.md).
        store = open_store(config.store_url, **_store_options(config.store_url))
        if isinstance(
            store, SQLiteStore
        ):  # its checkpoints, off the loop (server.adapters.checkpoint)
            start_checkpointer(store, config.async_mode)
    app = Flask(__name__, static_folder=None)
    app.config["SECRET_KEY"] = config.secret_key
    app.config["CRAPETTE"] = config
    app.config["JSON_SORT_KEYS"] = False
    # No route reads more than a record upload (20 MB) plus its multipart wrapping: Werkzeug
    # refuses a longer body before anything reads it (a structured 413, below).
    app.config["MAX_CONTENT_LENGTH"] = 21 * 1024 * 1024
    origins = OriginPolicy(config.allowed_origins, behind_proxy=config.behind_proxy)
    queue: dict[str, str] = {}
    if config.message_queue:
        # Room emits go through Redis to every process, which delivers to its own members.
        queue = {"message_queue": config.message_queue, "channel": "crapette-socketio"}
    socketio = SocketIO(
        app,
        async_mode=config.async_mode,
        cors_allowed_origins=origins.for_socketio(),
        serializer=patches.serializer(),
        # Each client's messages are handled in the greenthread that reads them, in order,
        # instead of one new greenthread each, which joined the back of the loop's queue before
        # it ran (docs/benchmarks.md, figure (b)). No handler waits for another message.
        async_handlers=False,
        ping_interval=config.ping_interval_s,
        ping_timeout=config.ping_timeout_s,
        **queue,
    )
    patches.quiet_undecodable_packets(socketio.server)
    cluster = _cluster(config)
    # Built in the order each needs the other: the publisher (rooms) first, the service's parts
    # from it, then the routes and handlers that call them.
    publisher = SocketPublisher(socketio, updates, shared=cluster is not None)
    # One budget of heavy jobs per address and kind for the three pools: this process's, or with
    # Redis the whole cluster's (server/adapters/cluster.py `RedisShares`).
    shares = FairShares() if cluster is None else cluster.shares()
    service = GameService(
        store,
        publisher=publisher,
        grace_s=config.grace_s,
        bot_delay_s=config.bot_delay_s,
        test_bots=config.test_bots,
        lobby_file=None if config.lobby_file is None else Path(config.lobby_file),
        expire_open_s=config.expire_open_s,
        unload_idle_s=config.unload_idle_s,
        idle_after_s=config.idle_after_s,
        presence=None if cluster is None else cluster.presence(config.grace_s),
        leases=None if cluster is None else cluster.leases(),
        read_workers=_read_workers(config, store_given, shares),
        analysis_workers=_analysis_workers(config, store_given, shares),
        heavy_workers=_heavy_workers(config, store_given, shares),
        analysis_dir=config.analysis_dir,
        analyser=config.analyser,
        try_judge=config.try_judge,
    )
    app.extensions["crapette"] = service
    app.extensions["crapette_store"] = store
    app.register_blueprint(http.bp)
    app.register_blueprint(health.health_bp)
    health.add_check(app, "store", store.last_position)
    if cluster is not None:
        app.extensions["crapette_cluster"] = cluster
        health.add_check(app, "queue", cluster.ping)
        health.add_fact(app, "node", cluster.node_id)
        # Another process's events reach this cache, and its clients, through the feed.
        app.extensions["crapette_feed"] = AppendFeed(store, service.repo)  # before loading
    app.register_blueprint(players_bp)
    app.register_blueprint(records_bp)
    app.register_blueprint(share_bp)
    app.register_blueprint(tournaments_bp)
    app.register_blueprint(analysis_bp)
    _register_requester(app)
    _register_error_pages(app)
    _register_origin_check(app, origins)
    # Last: it wraps the routes registered above.
    fairuse.install(
        app,
        config.rate_limits,
        pause_s=config.refusal_pause_s,
        storage_uri=config.message_queue or "memory://",
    )
    # Around everything, Socket.IO's layer too: the Host check and the security headers.
    security.install(app, security.HostPolicy(config.allowed_hosts, config.announced_url))
    if config.behind_proxy:
        # One proxy in front (deploy/haproxy.cfg adds X-Forwarded-For): the rate limits count
        # each player's address, not the balancer's, and the origin check sees the public host.
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=1, x_proto=1, x_host=1
        )
    sockets.register(socketio, publisher, service)
    service.autopilot.start()
    return app, socketio


# How long a heavy worker may build before it is taken for stalled (a read: 60 s).
HEAVY_TIMEOUT_S = 180.0


def _register_requester(app: Flask) -> None:
    """The address each request's heavy jobs count against (fair shares,
    server/adapters/workers.py): the client's, or the one `--behind-proxy` trusts."""

    @app.before_request
    def requester() -> None:
        set_requester(request.remote_addr)

    @app.teardown_request
    def no_requester(_exc: BaseException | None) -> None:
        set_requester(None)


def _pool(
    config: ServerConfig,
    store_given: bool,
    size: int,
    max_waiting: int,
    timeout_s: float,
    shares: FairShares,
    idle_class: bool = False,
) -> ReadWorkers | None:
    """A pool of worker processes (server/adapters/workers.py): they open the store by its URL,
    so only when this app opened it from `config.store_url` itself and it is not in memory.
    Stopped when this process ends (and each worker also ends by itself)."""
    if not size or store_given or config.store_url.startswith("memory:"):
        return None
    workers = ReadWorkers(
        config.store_url,
        size=size,
        max_waiting=max_waiting,
        timeout_s=timeout_s,
        max_rss_mb=config.worker_memory_mb,
        shares=shares,
        idle_class=idle_class,
    )
    atexit.register(workers.close)
    return workers


def _read_workers(
    config: ServerConfig, store_given: bool, shares: FairShares
) -> ReadWorkers | None:
    """The heavy reads' pool: replays, records, a seat's options, pictures."""
    return _pool(
        config, store_given, config.read_workers, config.read_queue, READ_TIMEOUT_S, shares
    )


def _heavy_workers(
    config: ServerConfig, store_given: bool, shares: FairShares
) -> ReadWorkers | None:
    """The pool of the builds that take seconds (GIF, one-file HTML, uploaded records), apart
    from the read pool so that a replay never waits behind one (server/services/reads.py,
    server/services/imports.py). A check of 20,000 actions may take a while on a busy machine:
    a longer stall bound than the reads'."""
    return _pool(
        config, store_given, config.heavy_workers, config.read_queue, HEAVY_TIMEOUT_S, shares
    )


def _analysis_workers(
    config: ServerConfig, store_given: bool, shares: FairShares
) -> ReadWorkers | None:
    """The analysis pool (server/services/analyses.py); a few analyses wait for a worker (more:
    `503 busy`). A label's check (issue 37: 2 x 16 playouts) sends no progress while it runs:
    on a busy machine it may outlast the reads' stall bound, hence the heavy builds' bound. Its
    workers run in the SCHED_IDLE class: an analysis is seconds of CPU on end, and a table's
    move must not wait for its time slice (server/adapters/workers.py `SCHED_ENV`)."""
    return _pool(config, store_given, config.analysis_workers, 8, HEAVY_TIMEOUT_S, shares, True)


def _cluster(config: ServerConfig) -> Cluster | None:
    """The Redis side of several processes, or None for one process alone (the default, which
    imports nothing of it)."""
    if not config.message_queue:
        return None
    from server.adapters.cluster import Cluster

    return Cluster(config.message_queue, config.node_id)


def _register_error_pages(app: Flask) -> None:
    @app.errorhandler(ServerError)
    def server_error(exc: ServerError) -> tuple[Response, int]:
        return exc.reply()

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> tuple[Response, int]:
        codes = {404: "not_found", 405: "invalid", 400: "invalid", 413: "too_large"}
        code = codes.get(exc.code or 500, "http")
        return jsonify({"code": code, "message": exc.description or exc.name}), exc.code or 500

    @app.errorhandler(Exception)
    def internal_error(exc: Exception) -> tuple[Response, int]:
        log.exception("request failed", exc_info=exc)
        return jsonify({"code": "internal", "message": "The server failed on this request."}), 500


def _register_origin_check(app: Flask, origins: OriginPolicy) -> None:
    """Requests that change something come only from the server's own pages or an allowed
    origin (server/entrypoints/origins.py); an allowed other origin also gets the CORS headers it
    needs."""

    @app.before_request
    def check_origin() -> None:
        origin = request.headers.get("Origin")
        if request.method in SAFE_METHODS or origins.accepts(origin, request.environ):
            return
        raise OriginRefusedError(
            f"Requests from pages of {quoted(origin)} are not accepted here; the server's "
            "owner can allow them with --allowed-origin ORIGIN."
        )

    @app.after_request
    def cors_headers(response: Response) -> Response:
        origin = request.headers.get("Origin")
        if origin is None or not origins.allowed or not origins.accepts(origin, request.environ):
            return response
        response.headers["Access-Control-Allow-Origin"] = origin
        response.headers["Access-Control-Allow-Methods"] = "GET, POST, OPTIONS"
        response.headers["Access-Control-Allow-Headers"] = "Content-Type, If-None-Match"
        response.headers["Access-Control-Expose-Headers"] = "ETag"
        response.vary.add("Origin")
        return response


def start_clock(socketio: SocketIO, service: GameService, tick_s: float) -> None:
    """The one background task: time-outs and bot moves, both derived from event times, and the
    upkeep (lobby projection, expiry of open tables, idle matches out of memory)."""

    def loop() -> None:
        while True:
            socketio.sleep(tick_s)
            try:
                service.autopilot.tick()
                service.upkeep.run()
                service.tournaments.tick()
            except Exception:
                log.exception("clock tick failed")

    socketio.start_background_task(loop)


def start_cluster(socketio: SocketIO, app: Flask) -> None:
    """With a message queue, two more background tasks: the append feed (server.adapters.feed) and
    the heartbeat that renews this process's presence entries and match leases
    (server.adapters.cluster); and a clean stop (SIGTERM, SIGINT) that releases the leases before
    the process ends, so that another process drives its matches at its next heartbeat instead of
    after they lapse. Call from the main thread (signal handlers)."""
    cluster = app.extensions.get("crapette_cluster")
    if cluster is None:
        return
    from server.adapters.cluster import HEARTBEAT_S

    service: GameService = app.extensions["crapette"]
    socketio.start_background_task(app.extensions["crapette_feed"].run)

    def beat() -> None:
        while True:
            try:
                service.presence.heartbeat()
                service.autopilot.leases.renew(
                    entry.match_id for entry in service.repo.entries() if entry.live
                )
            except Exception:  # Redis away for a moment: try again at the next beat
                log.exception("heartbeat failed")
            socketio.sleep(HEARTBEAT_S)

    socketio.start_background_task(beat)

    def stop(signum: int) -> None:
        try:
            service.autopilot.leases.release()
        except Exception:  # Redis away: the leases lapse on their own
            log.exception("releasing the leases failed")
        finally:
            # Then end as the signal would have ended the process without this handler.
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)

    def on_signal(signum: int, _frame: object) -> None:
        # Only scheduled here: a signal handler may interrupt the event loop itself, where no
        # green I/O may wait.
        socketio.start_background_task(stop, signum)

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, on_signal)


def _store_options(url: str) -> dict[str, Any]:
    """SQLite commits the appends of the tables that move at the same moment together (group
    commit, docs/eventstore.md) unless the URL says `group_commit=off`, and checkpoints its WAL
    beside the loop."""
    if not url.startswith("sqlite:"):
        return {}
    # Its WAL checkpoints happen in a thread of their own (server.adapters.checkpoint), not in a
    # commit.
    options: dict[str, Any] = {"wal_autocheckpoint": 0}
    if "group_commit=" not in url:
        options["group_commit"] = True
    return options
