"""The project builds as a wheel that an installed server can run from: every package, the whole
browser client as package data, and the `crapette` console script (issue 2)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
# Local state that is not part of the source (and would make the copy slow or the wheel stale).
NOT_SOURCE = shutil.ignore_patterns(
    ".git", ".venv*", "data", "build", "dist", "*.egg-info", "test-artifacts", "__pycache__",
    ".*_cache", ".hypothesis", "node_modules",
)  # fmt: skip


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    # Build from a copy: setuptools' in-tree build/ folder could hide a deleted file or race
    # with a colleague building at the same time.
    source = tmp_path_factory.mktemp("source") / "crapette"
    shutil.copytree(REPO_ROOT, source, ignore=NOT_SOURCE)
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(out), str(source)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    (built,) = out.glob("crapette-*.whl")
    return zipfile.ZipFile(built)


def _web_files() -> set[str]:
    web = REPO_ROOT / "web"
    return {
        path.relative_to(REPO_ROOT).as_posix()
        for path in web.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }


@pytest.mark.slow
def test_wheel_ships_the_whole_browser_client(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    missing = sorted(_web_files() - names)
    assert missing == [], f"web files left out of the wheel: {missing}"


@pytest.mark.slow
def test_wheel_holds_the_packages_and_not_the_tests(wheel: zipfile.ZipFile) -> None:
    tops = {name.split("/")[0] for name in wheel.namelist()}
    assert {"domain", "eventstore", "server", "web"} <= tops
    assert "tests" not in tops and "scripts" not in tops


@pytest.mark.slow
def test_wheel_declares_the_console_script(wheel: zipfile.ZipFile) -> None:
    (entry_points,) = [n for n in wheel.namelist() if n.endswith(".dist-info/entry_points.txt")]
    text = wheel.read(entry_points).decode()
    assert "[console_scripts]" in text
    assert "crapette = server.cli:main" in text
