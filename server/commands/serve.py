"""`crapette serve`: run the game server for the local network."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import click

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
@click.option("--bot-delay", "bot_delay_s", default=0.4, show_default=True, help="Bot pause (s).")
@click.option("--quiet", is_flag=True, help="Log warnings only.")
def serve(
    host: str,
    port: int,
    store_url: str | None,
    data_dir: str,
    async_mode: str,
    grace_s: float,
    bot_delay_s: float,
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
    config = ServerConfig(
        store_url=store_url,
        async_mode=async_mode,
        grace_s=grace_s,
        bot_delay_s=bot_delay_s,
        host=host,
        port=port,
    )
    from server.app import create_app, start_clock
    from server.lan import lan_urls
    from server.patches import run_options

    app, socketio = create_app(config)
    start_clock(socketio, app.extensions["crapette"], config.tick_s)
    for url in lan_urls(host, port):
        click.echo(f"Crapette server: open {url}")
    click.echo(f"store: {store_url} (async mode {async_mode})", err=True)
    socketio.run(
        app,
        host=host,
        port=port,
        log_output=not quiet,
        allow_unsafe_werkzeug=True,
        **run_options(async_mode),
    )
