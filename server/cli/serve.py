"""`crapette serve`: run the game server for the local network."""

from __future__ import annotations

import atexit
import hashlib
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from server.adapters.announce import AnnouncerProcess
from server.config import ServerConfig


@click.command()
@click.option("--host", default="0.0.0.0", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=int, help="TCP port to listen on.")
@click.option(
    "--store",
    "store_url",
    default=None,
    envvar="CRAPETTE_STORE",
    help="Event store URL (default: $CRAPETTE_STORE, else a SQLite file in the data dir).",
)
@click.option(
    "--data-dir",
    default="./data",
    show_default=True,
    type=click.Path(file_okay=False),
    help="Where the default SQLite store lives.",
)
@click.option(
    "--async-mode",
    type=click.Choice(["eventlet", "threading"]),
    default="eventlet",
    show_default=True,
)
@click.option("--grace", "grace_s", default=60.0, show_default=True, help="Disconnect grace (s).")
@click.option(
    "--bot-delay",
    "bot_delay_s",
    default=None,
    type=float,
    help="Bot pause (s) for every table, overriding each table's bot pace (default: the pace).",
)
@click.option(
    "--test-bots", is_flag=True, help="Allow the test-only bots (server/services/testbots.py)."
)
@click.option(
    "--allowed-origin",
    "allowed_origins",
    multiple=True,
    metavar="ORIGIN",
    help="Also accept Socket.IO and changing HTTP requests from pages of this origin, e.g. "
    "https://example.org (repeatable; '*' accepts any). Default: only the server's own pages.",
)
@click.option(
    "--allowed-host",
    "allowed_hosts",
    multiple=True,
    metavar="NAME",
    help="Also answer requests addressed to this host name, e.g. crapette.example.org "
    "(repeatable; '*' answers any). Default: the server's addresses, localhost, this machine's "
    "names and the mDNS name; any other Host gets 421 (DNS rebinding, docs/deploy.md).",
)
@click.option(
    "--rate-limit",
    "rate_limit",
    multiple=True,
    metavar="KIND=LIMIT",
    help="Per-address limit of an expensive request kind (create, replay, view, options, "
    "record, upload, share, picture, analysis, players, health, join, or all), e.g. "
    "replay=10/minute or create=off (repeatable). Default: docs/protocol.md § Rate limits.",
)
@click.option(
    "--expire-open-after",
    "expire_open_min",
    default=120.0,
    show_default=True,
    help="Minutes after which an open table nobody joined leaves the lobby (0: never).",
)
@click.option(
    "--unload-after",
    "unload_idle_min",
    default=10.0,
    show_default=True,
    help="Minutes after which a table with nobody seated connected leaves memory (0: never).",
)
@click.option(
    "--idle-after",
    "idle_after_min",
    default=1.0,
    show_default=True,
    help="Minutes after its last person left (or nobody came) after which a live table leaves "
    "the lobby's live games and open tables (0: never).",
)
@click.option(
    "--message-queue",
    default=None,
    envvar="CRAPETTE_MESSAGE_QUEUE",
    help="Redis URL shared by several processes serving one store (docs/deploy.md).",
)
@click.option("--node-id", default=None, help="This process's name among several (logs, leases).")
@click.option(
    "--behind-proxy",
    is_flag=True,
    help="Trust one reverse proxy's X-Forwarded-For/-Proto/-Host (HAProxy, docs/deploy.md).",
)
@click.option(
    "--read-workers",
    default=2,
    show_default=True,
    type=click.IntRange(0, 8),
    help="Worker processes that build replays, record downloads and options off the event loop "
    "(0: in the server process).",
)
@click.option(
    "--ping-interval",
    "ping_interval_s",
    default=25.0,
    show_default=True,
    type=click.FloatRange(min=0.1),
    help="Seconds between two heartbeats (engine.io pings) on every connection.",
)
@click.option(
    "--ping-timeout",
    "ping_timeout_s",
    default=20.0,
    show_default=True,
    type=click.FloatRange(min=0.1),
    help="Seconds a client may leave a ping unanswered before its connection counts as lost.",
)
@click.option(
    "--no-announce",
    is_flag=True,
    help="Do not announce the server by name on the local network "
    "(mDNS, server/adapters/announce.py).",
)
@click.option(
    "--announce-name",
    default="crapette",
    show_default=True,
    help="The name announced by mDNS: the lobby is also at http://NAME.local:PORT/.",
)
@click.option(
    "--announce-on",
    "announce_on",
    multiple=True,
    metavar="INTERFACE",
    help="Announce on this network interface only, e.g. wlan0 (repeatable; default: every "
    "interface but loopback).",
)
@click.option(
    "--analysis-workers",
    default=1,
    show_default=True,
    type=click.IntRange(0, 8),
    help="Worker processes that analyse finished matches (win chances, judgements) off the "
    "event loop (0: in a thread of the server process).",
)
@click.option(
    "--heavy-workers",
    default=1,
    show_default=True,
    type=click.IntRange(0, 8),
    help="Worker processes that draw GIFs, build one-file replays and check uploaded records "
    "off the event loop, apart from the read workers (0: the read workers do it).",
)
@click.option(
    "--worker-memory-mb",
    default=512,
    show_default=True,
    type=click.IntRange(32, 65536),
    help="A worker process's memory bound: one that goes over it is replaced and its job "
    "refused (422 too_costly).",
)
@click.option(
    "--analyser",
    default="server.readmodels.judge:analyse_record",
    show_default=True,
    hidden=True,
    help="The function that judges a record, module:function (tests name a fixture).",
)
@click.option(
    "--try-judge",
    default="server.services.try_judge:judge_try",
    show_default=True,
    hidden=True,
    help="The function giving a try's win chance in the learning mode, module:function.",
)
@click.option("--quiet", is_flag=True, help="Log warnings only.")
def serve(
    host: str,
    port: int,
    store_url: str | None,
    data_dir: str,
    async_mode: str,
    grace_s: float,
    bot_delay_s: float | None,
    test_bots: bool,
    allowed_origins: tuple[str, ...],
    allowed_hosts: tuple[str, ...],
    rate_limit: tuple[str, ...],
    expire_open_min: float,
    unload_idle_min: float,
    idle_after_min: float,
    message_queue: str | None,
    node_id: str | None,
    behind_proxy: bool,
    read_workers: int,
    ping_interval_s: float,
    ping_timeout_s: float,
    no_announce: bool,
    announce_name: str,
    announce_on: tuple[str, ...],
    analysis_workers: int,
    heavy_workers: int,
    worker_memory_mb: int,
    analyser: str,
    try_judge: str,
    quiet: bool,
) -> None:
    """Serve the lobby, the tables and the replays (open the printed URL in a browser)."""
    # server.cli has already monkey-patched when eventlet is wanted: it must happen first.
    logging.basicConfig(level=logging.WARNING if quiet else logging.INFO)
    if store_url is None:
        Path(data_dir).mkdir(parents=True, exist_ok=True)
        # WAL with synchronous=NORMAL: a commit survives a crash of the server process (and a
        # laptop's sleep), only an OS crash or power cut may lose the last moves. FULL costs one
        # fsync per move (~10 ms here), which serialises every table behind the disk.
        path = os.path.abspath(os.path.join(data_dir, "crapette.sqlite3"))
        store_url = f"sqlite:///{path}?synchronous=NORMAL"
    if message_queue and store_url.startswith("memory:"):
        raise click.UsageError("processes sharing a message queue must share a store too")
    announcer = None if no_announce else _announcer(announce_name, host, port, announce_on)
    config = ServerConfig(
        store_url=store_url,
        async_mode=async_mode,
        grace_s=grace_s,
        bot_delay_s=bot_delay_s,
        test_bots=test_bots,
        host=host,
        port=port,
        allowed_origins=_origins(allowed_origins),
        allowed_hosts=_hosts(allowed_hosts),
        rate_limits=_rate_limits(rate_limit),
        lobby_file=_lobby_file(store_url, data_dir),
        expire_open_s=expire_open_min * 60 if expire_open_min > 0 else None,
        unload_idle_s=unload_idle_min * 60 if unload_idle_min > 0 else None,
        idle_after_s=idle_after_min * 60 if idle_after_min > 0 else None,
        message_queue=message_queue,
        node_id=node_id,
        behind_proxy=behind_proxy,
        read_workers=read_workers,
        ping_interval_s=ping_interval_s,
        ping_timeout_s=ping_timeout_s,
        announced_url=None if announcer is None else announcer.config.announcement(()).url,
        analysis_workers=analysis_workers,
        heavy_workers=heavy_workers,
        worker_memory_mb=worker_memory_mb,
        analysis_dir=_analysis_dir(store_url, data_dir),
        analyser=analyser,
        try_judge=try_judge,
    )
    from server.app import create_app, start_clock, start_cluster
    from server.entrypoints.lan import lan_urls
    from server.runtime.collector import CollectorPacer
    from server.runtime.patches import run_options

    app, socketio = create_app(config)
    start_clock(socketio, app.extensions["crapette"], config.tick_s)
    start_cluster(socketio, app)
    for url in lan_urls(host, port):
        click.echo(f"Crapette server: open {url}")
    if announcer is not None:
        # Its own process (server/adapters/announce.py): zeroconf's threads never meet eventlet's
        # hub.
        announcer.start()
        atexit.register(announcer.stop)
        click.echo(f"  or, where the network carries mDNS: {config.announced_url}")
    click.echo(f"store: {store_url} (async mode {async_mode})", err=True)
    if async_mode == "threading":
        click.echo(THREADING_WARNING, err=True)
    cluster = app.extensions.get("crapette_cluster")
    if cluster is not None:
        click.echo(f"message queue: on (node {cluster.node_id})", err=True)
    # What is loaded by now (the modules, the tables in play) lives as long as the process, and
    # so does most of what comes later: frozen at start and then every second, the collector
    # walks only what is newer, so its pauses stay short (server/runtime/collector.py, and
    # docs/benchmarks.md figure (b)).
    pacer = CollectorPacer()
    pacer.start()
    socketio.start_background_task(pacer.run, socketio.sleep)
    socketio.run(
        app,
        host=host,
        port=port,
        log_output=not quiet,
        # Flask-SocketIO refuses Werkzeug's server unless told: `--async-mode threading` is the
        # telling (it is never the default), and the warning above says what it means.
        allow_unsafe_werkzeug=async_mode == "threading",
        **run_options(async_mode),
    )


THREADING_WARNING = (
    "warning: --async-mode threading serves with Werkzeug's development server (a thread per "
    "connection, not hardened nor tuned for many players): for debugging and tests only; serve "
    "players with the default, --async-mode eventlet (docs/deploy.md § Security)."
)


def _rate_limits(settings: tuple[str, ...]) -> dict[str, str | None]:
    from server.entrypoints.fairuse import DEFAULT_LIMITS, RateLimitError, parse_limits

    try:
        return {**DEFAULT_LIMITS, **parse_limits(settings)}
    except RateLimitError as exc:
        raise click.BadParameter(str(exc), param_hint="--rate-limit") from None


def _origins(origins: tuple[str, ...]) -> tuple[str, ...]:
    """Each `--allowed-origin` as a browser sends it: `scheme://host[:port]`, or `*`. Anything
    else (a bare host name, a path) would never match a request: refused, not kept in silence."""
    for origin in origins:
        scheme, sep, host = origin.rstrip("/").partition("://")
        if origin != "*" and not (sep and scheme and host and "/" not in host and " " not in host):
            raise click.BadParameter(
                f"{origin!r}: an origin is like https://example.org or http://host:8000, or *",
                param_hint="--allowed-origin",
            )
    return origins


def _hosts(hosts: tuple[str, ...]) -> tuple[str, ...]:
    """Each `--allowed-host` as a `Host` header names it: a name or address with no scheme,
    path, port or space (the port is never checked), or `*`."""
    for host in hosts:
        if host != "*" and (not host or any(c in host for c in "/ :@") or host.startswith(".")):
            raise click.BadParameter(
                f"{host!r}: a host is a name like crapette.example.org (no scheme, port or "
                "path), or *",
                param_hint="--allowed-host",
            )
    return hosts


DEFAULT_DATA_DIR = "./data"


def _analysis_dir(store_url: str, data_dir: str) -> str | None:
    """Where built analyses are kept (server/readmodels/analysis_build.py, by record hash): beside a
    SQLite file, in the data dir for another store, nowhere (memory) for the memory store."""
    lobby = _lobby_file(store_url, data_dir)
    if lobby is None:
        return None
    return lobby.removesuffix(".json").removesuffix(".lobby") + ".analyses"


def _lobby_file(store_url: str, data_dir: str) -> str | None:
    """Where the lobby projection of this store is saved: beside a SQLite file, in the data dir
    for another store (one file per store URL), nowhere for the memory store."""
    if store_url.startswith("memory:"):
        return None
    if store_url.startswith("sqlite://"):
        path = store_url.removeprefix("sqlite://").partition("?")[0]
        return f"{path}.lobby.json"
    Path(data_dir).mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(store_url.encode()).hexdigest()[:12]
    return os.path.join(data_dir, f"lobby-{digest}.json")


def _announcer(
    name: str, host: str, port: int, interfaces: tuple[str, ...]
) -> AnnouncerProcess | None:
    """The mDNS announcer for this server, or None when nobody else could reach it by name (it
    listens on loopback only and no interface is named)."""
    from server.adapters.announce import (
        AnnounceConfig,
        AnnouncerProcess,
        reachable_by_name,
        valid_name,
    )
    from server.entrypoints.pages import package_version_or_zero

    if not valid_name(name):
        raise click.BadParameter(
            f"{name!r}: a name is letters, digits and inner hyphens (at most 63)",
            param_hint="--announce-name",
        )
    config = AnnounceConfig(
        name=name.lower(),
        port=port,
        host=host,
        interfaces=interfaces,
        version=package_version_or_zero(),
    )
    return AnnouncerProcess(config) if reachable_by_name(config) else None


analysis_dir = _analysis_dir  # also where `crapette export --format html` finds them
