"""The `crapette` command line. Each sub-command, or family of them (records.py: `export`,
`import` and `verify`), lives in its own module under server/cli and is registered here;
`crapette bench` comes from the top-level `bench` package, which plugs in through the
`crapette.commands` entry point group (pyproject.toml), so that the server never imports its
benchmarks (docs/architecture.md § Rooms). `crapette serve` under eventlet first patches the
process (`server.runtime.patches`), before anything else is imported."""

from __future__ import annotations

import sys
from importlib.metadata import entry_points

from server.runtime import (
    patches,  # `crapette serve` under eventlet must monkey-patch before anything else is imported.
)

if sys.argv[1:2] == ["serve"]:
    patches.refuse_untested_versions()  # before a patch touches a library it was not tested on
if patches.wants_eventlet(sys.argv[1:]):
    patches.eventlet_first()

import click  # noqa: E402

from server.cli.analyse import analyse_cmd  # noqa: E402
from server.cli.deal import deal  # noqa: E402
from server.cli.records import export_cmd, import_cmd, verify_cmd  # noqa: E402
from server.cli.selfplay import selfplay  # noqa: E402
from server.cli.serve import serve  # noqa: E402
from server.cli.stats import stats_cmd  # noqa: E402
from server.cli.store import store  # noqa: E402
from server.cli.tournament import tournament  # noqa: E402


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
):
    main.add_command(_command)

# Commands of other installed packages: `bench` (the benchmarks, outside the product's server).
for _entry in entry_points(group="crapette.commands"):
    main.add_command(_entry.load(), _entry.name)
