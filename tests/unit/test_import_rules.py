"""The dependency rules of docs/architecture.md ("The layers"), checked on the source text.

- `domain` imports nothing outside the standard library, and of the standard library only modules
  without I/O or hidden state (an allow-list: `sqlite3`, `socket`, `os`, `time`... are refused),
  so the rules engine stays pure and replayable. One exception, for one file only
  (`DOMAIN_THIRD_PARTY`): the Swiss pairing's maximum-weight matching imports networkx, because
  Edmonds' blossom algorithm is long and subtle and a greedy pass is wrong (docs/tournaments.md,
  "Why networkx may be imported by the domain"); it is pure (no I/O, clock or randomness).
  Likewise numpy in the evaluator's value function and its fitting (`domain/evaluator/value.py`,
  `fit.py`: array arithmetic, docs/evaluator.md).
- `eventstore` never imports `domain`, `server` or `web`.
- Nothing outside `eventstore` talks to a database driver (issue 4), except the benchmarks, which
  measure the store against raw sqlite3 on purpose.

import-linter (scripts/test.sh, `lint-imports`) checks the package-level layers too; this test adds
the standard-library allow-list, which import-linter cannot express.
"""

from __future__ import annotations

import ast
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]

# Pure, deterministic standard-library modules the rules engine may use. Anything else (I/O,
# clocks, processes, threads, databases, the network, dynamic imports) is a violation; extend
# this list only with modules that keep `decide`/`evolve` pure.
DOMAIN_ALLOWED_STDLIB: frozenset[str] = frozenset(
    {
        "__future__",
        "abc",
        "array",
        "base64",
        "binascii",
        "bisect",
        "collections",
        "contextlib",
        "copy",
        "dataclasses",
        "datetime",
        "decimal",
        "enum",
        "fractions",
        "functools",
        "graphlib",
        "hashlib",
        "heapq",
        "hmac",
        "itertools",
        "json",
        "keyword",
        "math",
        "numbers",
        "operator",
        "random",
        "re",
        "reprlib",
        "statistics",
        "string",
        "struct",
        "textwrap",
        "types",
        "typing",
        "unicodedata",
        "uuid",
    }
)

# Third-party packages the domain may import, each from one module only (path below domain/).
DOMAIN_THIRD_PARTY: dict[str, frozenset[str]] = {
    "tournament/matching.py": frozenset({"networkx"}),
    # The evaluator's value function and its fitting (docs/evaluator.md): array arithmetic only.
    "evaluator/value.py": frozenset({"numpy"}),
    "evaluator/fit.py": frozenset({"numpy"}),
}

DATABASE_DRIVERS: frozenset[str] = frozenset({"sqlite3", "psycopg", "psycopg_pool", "psycopg2"})


@dataclass(frozen=True)
class Import:
    path: Path
    line: int
    module: str  # absolute dotted name ("" for a dynamic import whose target is unknown)

    @property
    def top(self) -> str:
        return self.module.split(".")[0]


class ImportCheckError(ValueError):
    """A source file could not be read as Python."""


def _package_of(path: Path, root: Path) -> list[str]:
    """Package parts of the module at `path` below `root` (to resolve `from . import x`)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    return parts[:-1]  # a module's package; for __init__.py, the package itself


def imports_in_source(source: str, path: Path, package: list[str]) -> list[Import]:
    """Every import in `source`, relative ones resolved against `package`. A relative import
    that climbs above the top package resolves to `..` so it can never pass as internal."""
    try:
        tree = ast.parse(source, filename=str(path))
    except SyntaxError as exc:
        raise ImportCheckError(f"{path}: cannot parse: {exc}") from exc
    found: list[Import] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend(Import(path, node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                found.append(Import(path, node.lineno, node.module or ""))
                continue
            up = node.level - 1
            base = package[: len(package) - up] if up < len(package) else []
            if not base:
                found.append(Import(path, node.lineno, ".." + (node.module or "")))
                continue
            target = ".".join(base + ([node.module] if node.module else []))
            found.append(Import(path, node.lineno, target))
        elif isinstance(node, ast.Call) and _is_dynamic_import(node.func):
            first = node.args[0] if node.args else None
            name = "?"
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                name = first.value
            found.append(Import(path, node.lineno, f"<dynamic import {name}>"))
    return found


def _is_dynamic_import(func: ast.expr) -> bool:
    if isinstance(func, ast.Name):
        return func.id in {"__import__", "import_module"}
    return isinstance(func, ast.Attribute) and func.attr == "import_module"


def imports_in_package(package_dir: Path) -> list[Import]:
    root = package_dir.parent
    found: list[Import] = []
    for path in sorted(package_dir.rglob("*.py")):
        found.extend(
            imports_in_source(path.read_text(encoding="utf-8"), path, _package_of(path, root))
        )
    return found


def domain_violations(package_dir: Path) -> list[str]:
    """Imports in the domain package that are neither its own modules nor on the allow-list."""
    own = package_dir.name
    return [
        f"{imp.path}:{imp.line}: domain imports {imp.module!r}: not on the standard-library "
        "allow-list (domain must stay pure)"
        for imp in imports_in_package(package_dir)
        if imp.top != own
        and imp.top not in DOMAIN_ALLOWED_STDLIB
        and imp.top not in _third_party_allowed(imp.path, package_dir)
    ]


def _third_party_allowed(path: Path, package_dir: Path) -> frozenset[str]:
    return DOMAIN_THIRD_PARTY.get(path.relative_to(package_dir).as_posix(), frozenset())


def forbidden_imports(package_dir: Path, forbidden: frozenset[str], rule: str) -> list[str]:
    return [
        f"{imp.path}:{imp.line}: imports {imp.module!r}: {rule}"
        for imp in imports_in_package(package_dir)
        if imp.top in forbidden
    ]


# --- the rules, on the real code -------------------------------------------------------------


def test_domain_imports_only_allowed_standard_library() -> None:
    assert domain_violations(REPO_ROOT / "domain") == []


def test_eventstore_never_imports_domain_server_or_web() -> None:
    rule = "eventstore knows nothing of cards or of the server"
    forbidden = frozenset({"domain", "server", "web"})
    assert forbidden_imports(REPO_ROOT / "eventstore", forbidden, rule) == []


def test_only_eventstore_and_benchmarks_use_database_drivers() -> None:
    rule = "only eventstore/ talks to a database driver"
    violations = forbidden_imports(REPO_ROOT / "domain", DATABASE_DRIVERS, rule)
    for path in sorted((REPO_ROOT / "server").rglob("*.py")):
        if "bench" in path.relative_to(REPO_ROOT / "server").parts:
            continue  # benchmarks compare the store with raw sqlite3 on purpose
        package = _package_of(path, REPO_ROOT)
        for imp in imports_in_source(path.read_text(encoding="utf-8"), path, package):
            if path.name == "patches.py" and imp.module == "psycopg.waiting":
                continue  # switches psycopg's wait function under eventlet; it runs no query
            if imp.top in DATABASE_DRIVERS:
                violations.append(f"{imp.path}:{imp.line}: imports {imp.module!r}: {rule}")
    assert violations == []


def test_allow_list_holds_only_standard_library_modules() -> None:
    assert DOMAIN_ALLOWED_STDLIB.issubset(sys.stdlib_module_names)
    assert not DOMAIN_ALLOWED_STDLIB & {
        "sqlite3",
        "socket",
        "os",
        "time",
        "threading",
        "io",
        "secrets",
    }


# --- the checker catches deliberate violations ------------------------------------------------


@pytest.fixture
def domain_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "domain"
    shutil.copytree(REPO_ROOT / "domain", copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert domain_violations(copy) == []
    return copy


@pytest.mark.parametrize(
    "line",
    [
        "import sqlite3",
        "from sqlite3 import connect",
        "import os.path",
        "from socket import *",
        "import time",
        "import flask",
        "import eventstore",
        "from server import cli",
        "import importlib",
        "x = __import__('sqlite3')",
        "def f():\n    import subprocess\n",
    ],
)
def test_a_deliberate_violation_in_domain_is_caught(domain_copy: Path, line: str) -> None:
    (domain_copy / "bad_module.py").write_text(f"{line}\n", encoding="utf-8")
    violations = domain_violations(domain_copy)
    assert len(violations) >= 1
    assert all("bad_module.py:" in v for v in violations)


def test_networkx_is_allowed_in_the_matching_module_only(domain_copy: Path) -> None:
    assert "networkx" in (domain_copy / "tournament" / "matching.py").read_text(encoding="utf-8")
    (domain_copy / "tournament" / "swiss_greedy.py").write_text(
        "import networkx\n", encoding="utf-8"
    )
    (domain_copy / "engine_graph.py").write_text("from networkx import Graph\n", encoding="utf-8")
    violations = domain_violations(domain_copy)
    assert len(violations) == 2
    assert any("swiss_greedy.py:1" in v for v in violations)
    assert any("engine_graph.py:1" in v for v in violations)


def test_numpy_is_allowed_in_the_evaluator_value_and_fit_only(domain_copy: Path) -> None:
    assert "numpy" in (domain_copy / "evaluator" / "value.py").read_text(encoding="utf-8")
    (domain_copy / "evaluator" / "search_fast.py").write_text("import numpy\n", encoding="utf-8")
    (domain_copy / "engine_np.py").write_text("from numpy import array\n", encoding="utf-8")
    violations = domain_violations(domain_copy)
    assert len(violations) == 2
    assert any("search_fast.py:1" in v for v in violations)
    assert any("engine_np.py:1" in v for v in violations)


def test_a_violation_in_a_subpackage_is_caught(domain_copy: Path) -> None:
    sub = domain_copy / "bots"
    sub.mkdir(exist_ok=True)
    (sub / "__init__.py").write_text("", encoding="utf-8")
    (sub / "cheat.py").write_text("from .. import cards\nimport socket\n", encoding="utf-8")
    violations = domain_violations(domain_copy)
    assert len(violations) == 1 and "'socket'" in violations[0]


def test_relative_imports_inside_domain_are_allowed(domain_copy: Path) -> None:
    (domain_copy / "ok_module.py").write_text(
        "from __future__ import annotations\nfrom . import deal\nfrom .deal import x\n"
        "import dataclasses, hashlib\nfrom collections.abc import Iterator\n",
        encoding="utf-8",
    )
    assert domain_violations(domain_copy) == []


def test_a_relative_import_above_the_package_is_caught(domain_copy: Path) -> None:
    (domain_copy / "escape.py").write_text("from .. import server\n", encoding="utf-8")
    assert len(domain_violations(domain_copy)) == 1


def test_eventstore_importing_domain_is_caught(tmp_path: Path) -> None:
    store = tmp_path / "eventstore"
    store.mkdir()
    (store / "__init__.py").write_text("import sqlite3\nimport json\n", encoding="utf-8")
    (store / "cards.py").write_text("from domain.cards import Card\n", encoding="utf-8")
    violations = forbidden_imports(store, frozenset({"domain", "server", "web"}), "no")
    assert [v.split(":")[1] for v in violations] == ["1"]
    assert "cards.py" in violations[0]


def test_unparsable_source_is_reported_not_ignored(domain_copy: Path) -> None:
    (domain_copy / "broken.py").write_text("import (\n", encoding="utf-8")
    with pytest.raises(ImportCheckError, match="broken.py"):
        domain_violations(domain_copy)
