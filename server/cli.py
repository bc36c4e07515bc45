"""The `crapette` command line. Each sub-command lives in its own module under server/commands
or server/bench and is registered here. `crapette serve` under eventlet first patches the process
(`server.patches`), before anything else is imported."""

from __future__ import annotations

import sys

from server import patches

# `crapette serve` under eventlet must monkey-patch before anything else is imported.
if patches.wants_eventlet(sys.argv[1:]):
    patches.eventlet_first()

import click  # noqa: E402

from server.bench import bench  # noqa: E402
from server.commands.analyse import analyse_cmd  # noqa: E402
from server.commands.deal import deal  # noqa: E402
from server.commands.records import export_cmd, import_cmd, verify_cmd  # noqa: E402
from server.commands.selfplay import selfplay  # noqa: E402
from server.commands.serve import serve  # noqa: E402
from server.commands.stats import stats_cmd  # noqa: E402
from server.commands.store import store  # noqa: E402
from server.commands.tournament import tournament  # noqa: E402


@click.group()
@click.version_option(package_name="crapette")
def main() -> None:
    """Crapette (Russian Bank): an event-sourced game server."""


for _command in (
    serve,
    deal,
    export_cmd,
    import_cmd,
    verify_cmd,
    analyse_cmd,
    selfplay,
    store,
    stats_cmd,
    tournament,
    bench,
):
    main.add_command(_command)
