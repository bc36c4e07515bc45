"""`crapette bench engine|store|server`: benchmarks printing ratios against a same-run baseline."""

from __future__ import annotations

import click

from server.bench.browser import browser
from server.bench.engine import engine
from server.bench.server_bench import server as server_cmd
from server.bench.store import store


@click.group()
def bench() -> None:
    """Benchmarks (ratios against a baseline measured in the same run)."""


for _command in (engine, store, server_cmd, browser):
    bench.add_command(_command)
