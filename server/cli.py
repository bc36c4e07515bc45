"""The `crapette` command line. Each sub-command lives in its own module under server/commands
or server/bench and is registered here, so that every part can be worked on separately."""

from __future__ import annotations

import sys

from server import patches

# `crapette serve` under eventlet must monkey-patch before anything else is imported.
if patches.wants_eventlet(sys.argv[1:]):
    patches.eventlet_first()

import importlib  # noqa: E402

import click  # noqa: E402

# (module, attribute) of each click command; a module that fails to import is reported, not hidden.
COMMANDS: list[tuple[str, str]] = [
    ("server.commands.serve", "serve"),
    ("server.commands.deal", "deal"),
    ("server.commands.records", "export_cmd"),
    ("server.commands.records", "import_cmd"),
    ("server.commands.records", "verify_cmd"),
    ("server.commands.selfplay", "selfplay"),
    ("server.commands.store", "store"),
    ("server.commands.stats", "stats_cmd"),
    ("server.bench", "bench"),
]


@click.group()
@click.version_option(package_name="crapette")
def main() -> None:
    """Crapette (Russian Bank): an event-sourced game server."""


def _report(module_name: str, exc: Exception) -> None:
    print(f"crapette: {module_name} is unavailable: {exc}", file=sys.stderr)


def _register() -> None:
    for module_name, attr in COMMANDS:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:  # not written yet
                continue
            _report(module_name, exc)
            continue
        except ImportError as exc:
            # One broken sub-command must not take `crapette serve` down with it: say so, go on.
            _report(module_name, exc)
            continue
        command = getattr(module, attr, None)
        if command is not None:
            main.add_command(command)


_register()
