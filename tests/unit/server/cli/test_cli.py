"""The `crapette` command line: every sub-command of the README is registered and answers --help."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from server.cli import main

# The sub-commands the README documents (issues 3-8, 15, 18).
EXPECTED_COMMANDS = (
    *("serve", "deal", "export", "import", "verify", "selfplay", "bench"),
    *("store", "stats"),
)


def test_help_lists_every_documented_command() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0, result.output
    listed = {
        line.split()[0]
        for line in result.output.split("Commands:", 1)[-1].splitlines()
        if line.startswith("  ") and line.split()
    }
    missing = [name for name in EXPECTED_COMMANDS if name not in listed]
    assert missing == [], f"not registered: {missing}\n{result.output}"


@pytest.mark.parametrize("command", EXPECTED_COMMANDS)
def test_each_command_answers_help(command: str) -> None:
    if command not in main.commands:
        pytest.fail(f"`crapette {command}` is not registered")
    result = CliRunner().invoke(main, [command, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage:" in result.output


def test_serve_help_names_every_rate_limit_kind() -> None:
    """`--rate-limit` accepts each kind of server/entrypoints/fairuse.py: its help names them
    all."""
    from server.entrypoints.fairuse import KINDS

    result = CliRunner().invoke(main, ["serve", "--help"])
    said = " ".join(result.output.split())
    missing = [kind for kind in KINDS if not re.search(rf"\b{kind}\b", said)]
    assert missing == [], said


@pytest.mark.parametrize("origin", ["example.org", "https://example.org/play", "http://"])
def test_serve_refuses_an_allowed_origin_no_browser_would_send(origin: str) -> None:
    """A bare host name or a path never equals a browser's `Origin`: refused at start, before
    any server is made, rather than kept and never matched."""
    args = ["serve", "--async-mode", "threading", "--store", "memory://", "--allowed-origin"]
    result = CliRunner().invoke(main, [*args, origin])
    assert result.exit_code == 2, result.output
    assert "--allowed-origin" in result.output and "https://example.org" in result.output


@pytest.mark.parametrize(
    "host", ["http://example.org", "example.org:8000", "example.org/play", "", ".example.org"]
)
def test_serve_refuses_an_allowed_host_no_request_would_name(host: str) -> None:
    """`--allowed-host` is a name as a `Host` header gives it, without scheme, port or path."""
    args = ["serve", "--async-mode", "threading", "--store", "memory://", "--allowed-host"]
    result = CliRunner().invoke(main, [*args, host])
    assert result.exit_code == 2, result.output
    assert "--allowed-host" in result.output and "crapette.example.org" in result.output


def test_version_is_the_package_version() -> None:
    from importlib.metadata import version

    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0, result.output
    assert version("crapette") in result.output


def test_unknown_command_fails_with_usage() -> None:
    result = CliRunner().invoke(main, ["no-such-command"])
    assert result.exit_code != 0
    assert "No such command" in result.output


def test_installed_console_script_runs() -> None:
    """The entry point from pyproject.toml works as a real process (scripts/test.sh installs it
    into the venv whose bin/ is next to the running interpreter)."""
    script = Path(sys.executable).with_name("crapette")
    found = str(script) if script.exists() else shutil.which("crapette")
    if found is None:
        pytest.skip("the crapette console script is not installed (pip install -e .)")
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    done = subprocess.run(
        [found, "--help"], capture_output=True, text=True, timeout=60, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "Usage: crapette" in done.stdout
