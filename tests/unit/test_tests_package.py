"""`tests` is always this checkout's tests/ (issue 40).

The `glicko2` wheel (a dependency: server/readmodels/ratings.py) installs a top-level package
named `tests` into site-packages. Nothing may import that one in place of ours:

- in the test run, pyproject.toml's `pythonpath = ["."]` puts the checkout first on sys.path
  whatever the import mode, and tests/conftest.py refuses to run if `tests` is found elsewhere;
- a child process (`python -m tests.contract.crash_child`) finds packages from its working
  folder, so every test that starts one by module name passes `cwd=` (checked below on the
  source: a child started from another folder would import glicko2's `tests`).
"""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

import tests
from tests.conftest import REPO_ROOT

TESTS = REPO_ROOT / "tests"
_SPAWNERS = {"run", "Popen", "check_call", "check_output", "call"}


def test_tests_is_this_checkouts_folder() -> None:
    assert Path(tests.__file__ or "").resolve().parent == TESTS


def test_a_child_started_in_the_checkout_finds_our_tests(tmp_path: Path) -> None:
    code = "import tests, sys; sys.stdout.write(tests.__file__)"
    ours = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    assert Path(ours.stdout).resolve().parent == TESTS
    # The hazard is real: from another folder, the same interpreter finds another `tests`.
    elsewhere = subprocess.run(
        [sys.executable, "-I", "-c", code], cwd=tmp_path, capture_output=True, text=True
    )
    if elsewhere.returncode != 0:
        pytest.skip("no other `tests` package installed (glicko2 no longer ships one)")
    assert Path(elsewhere.stdout).resolve().parent != TESTS


def _module_argument(call: ast.Call) -> ast.expr | None:
    """What follows "-m" in the argv list a subprocess call starts, if it starts one by module."""
    if not call.args or not isinstance(call.args[0], ast.List):
        return None
    argv = call.args[0].elts
    for before, after in zip(argv, argv[1:], strict=False):
        if isinstance(before, ast.Constant) and before.value == "-m":
            return after
    return None


def children_by_module_without_cwd(source: str) -> list[int]:
    """Lines of subprocess calls that run a module that may be ours (`tests.…` or a name only
    known at run time) by `-m` and do not say in which folder."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        if node.func.attr not in _SPAWNERS:
            continue
        module = _module_argument(node)
        if module is None:
            continue
        if isinstance(module, ast.Constant) and not str(module.value).startswith("tests"):
            continue  # `-m server`, `-m pip`: installed packages, found from anywhere
        if not any(keyword.arg == "cwd" for keyword in node.keywords):
            lines.append(node.lineno)
    return lines


def test_every_child_that_runs_a_test_module_starts_in_the_checkout() -> None:
    missing = [
        f"{path.relative_to(REPO_ROOT)}:{line}"
        for path in sorted(TESTS.rglob("*.py"))
        for line in children_by_module_without_cwd(path.read_text())
    ]
    assert not missing, f"pass cwd=REPO_ROOT to these (or glicko2's `tests` is found): {missing}"


def test_the_source_check_sees_a_child_without_its_folder() -> None:
    bad = 'subprocess.run([sys.executable, "-m", "tests.contract.crash_child", url])\n'
    good = 'subprocess.run([sys.executable, "-m", "tests.contract.crash_child"], cwd=ROOT)\n'
    server = 'subprocess.run([sys.executable, "-m", "server", "serve"])\n'
    assert children_by_module_without_cwd(bad) == [1]
    assert children_by_module_without_cwd(good) == []
    assert children_by_module_without_cwd(server) == []


def test_glicko2_is_what_installs_the_other_tests_package() -> None:
    # If this stops holding, the guard above may be dropped along with this file.
    spec = importlib.util.find_spec("glicko2")
    assert spec is not None and spec.origin is not None
    site = Path(spec.origin).resolve().parent.parent
    if not (site / "tests" / "__init__.py").exists():
        pytest.skip("glicko2 no longer installs a `tests` package")
    record = next(site.glob("glicko2-*.dist-info/RECORD")).read_text()
    assert "tests/__init__.py" in record
