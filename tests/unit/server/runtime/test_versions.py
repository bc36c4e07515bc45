"""server/runtime/patches.py's TESTED table (issue 27): `crapette serve` refuses to start on a
version of python-engineio, python-socketio, flask-socketio or eventlet the patches were not
tested with, naming the package and both versions, unless told to start anyway."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

from server.runtime import patches

ROOT = Path(__file__).resolve().parents[4]


def _versions(monkeypatch: pytest.MonkeyPatch, **overrides: str | None) -> None:
    def version(name: str) -> str:
        wanted = overrides.get(name.replace("-", "_"), patches.TESTED.get(name))
        if wanted is None:
            raise metadata.PackageNotFoundError(name)
        return wanted

    monkeypatch.setattr(metadata, "version", version)
    monkeypatch.delenv(patches.UNTESTED_ENV, raising=False)


def test_the_tested_versions_start(monkeypatch: pytest.MonkeyPatch) -> None:
    _versions(monkeypatch)
    assert patches.untested_versions() == []
    patches.refuse_untested_versions()  # no exit


def test_another_version_refuses_to_start_naming_package_installed_and_tested(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _versions(monkeypatch, python_engineio="4.16.0")
    with pytest.raises(SystemExit) as refused:
        patches.refuse_untested_versions()
    message = str(refused.value.code)
    assert "python-engineio 4.16.0 is installed" in message
    assert f"tested with {patches.TESTED['python-engineio']}" in message
    assert patches.UNTESTED_ENV in message  # how to start anyway
    assert patches.untested_versions() == [
        f"python-engineio 4.16.0 is installed; the patches were tested with "
        f"{patches.TESTED['python-engineio']}"
    ]  # only the one that differs


def test_a_missing_package_is_named_too(monkeypatch: pytest.MonkeyPatch) -> None:
    _versions(monkeypatch, eventlet=None)
    assert patches.untested_versions() == [
        f"eventlet is not installed; the patches were tested with {patches.TESTED['eventlet']}"
    ]


def test_the_override_starts_anyway(monkeypatch: pytest.MonkeyPatch) -> None:
    _versions(monkeypatch, eventlet="0.42.0")
    monkeypatch.setenv(patches.UNTESTED_ENV, "1")
    patches.refuse_untested_versions()  # no exit


def test_pyproject_pins_what_the_table_says() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = {}
    for requirement in project["dependencies"]:
        found = re.fullmatch(r"([A-Za-z0-9_.-]+)(\[[^]]*\])?==([^;\s]+)", requirement)
        if found:
            pins[found.group(1).lower()] = found.group(3)
    assert {name: pins.get(name) for name in patches.TESTED} == patches.TESTED


def test_this_environment_has_the_tested_versions() -> None:
    assert patches.untested_versions() == []


def test_crapette_serve_refuses_before_anything_is_patched() -> None:
    import os
    import subprocess
    import sys

    code = (
        "import sys; from importlib import metadata; metadata.version = lambda name: '0.0'; "
        "sys.argv = ['crapette', 'serve']; import server.cli"
    )
    env = {k: v for k, v in os.environ.items() if k != patches.UNTESTED_ENV}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT
    )
    assert done.returncode == 1
    for name, tested in patches.TESTED.items():
        assert f"{name} 0.0 is installed; the patches were tested with {tested}" in done.stderr


def test_the_bench_may_leave_out_a_known_patch_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(patches.WITHOUT_ENV, "immediate")
    assert not patches.enabled("immediate")
    assert patches.enabled("json")
    assert patches.serializer() is patches.json_packet()
    monkeypatch.setenv(patches.WITHOUT_ENV, "json")
    assert patches.serializer() == "default"
    monkeypatch.setenv(patches.WITHOUT_ENV, "coalesce")
    with pytest.raises(SystemExit, match="unknown patch"):
        patches.enabled("json")
