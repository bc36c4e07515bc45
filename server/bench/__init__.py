"""`crapette bench engine|store|server`: benchmarks printing ratios against a same-run baseline."""

from __future__ import annotations

import importlib

import click


@click.group()
def bench() -> None:
    """Benchmarks (ratios against a baseline measured in the same run)."""


for _module, _attr in [
    ("server.bench.engine", "engine"),
    ("server.bench.store", "store"),
    ("server.bench.server_bench", "server"),
    ("server.bench.browser", "browser"),
]:
    try:
        _mod = importlib.import_module(_module)
    except ModuleNotFoundError as _exc:
        if _exc.name != _module:
            raise
        continue
    _cmd = getattr(_mod, _attr, None)
    if _cmd is not None:
        bench.add_command(_cmd)
