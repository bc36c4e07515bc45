"""No import circles between modules (issue 40): a newcomer reading module A must never find
that A needs B which needs A. Every import counts, whether at the top, inside a function or under
`TYPE_CHECKING`: each is a place where one module needs the other.

The import graph is grimp's (it comes with import-linter, which checks the layers in
pyproject.toml); the circles are networkx's strongly connected components."""

from __future__ import annotations

import sys
from pathlib import Path

import grimp
import networkx as nx

PACKAGES = ("domain", "eventstore", "records", "server", "bench", "tests")


def import_graph(*packages: str) -> nx.DiGraph[str]:
    """Module -> module it imports, for every module of `packages` (outside modules left out)."""
    graph = grimp.build_graph(*packages, include_external_packages=False, cache_dir=None)
    edges: nx.DiGraph[str] = nx.DiGraph()
    for module in graph.modules:
        edges.add_node(module)
        for imported in graph.find_modules_directly_imported_by(module):
            edges.add_edge(module, imported)
    return edges


def circles(graph: nx.DiGraph[str]) -> list[list[str]]:
    """Each set of modules that import one another in a circle, sorted, biggest first."""
    found = [sorted(part) for part in nx.strongly_connected_components(graph) if len(part) > 1]
    return sorted(found, key=lambda part: (-len(part), part))


def test_the_packages_are_found_in_this_checkout() -> None:
    # The graph is of these sources, not of copies installed elsewhere (site-packages).
    graph = import_graph(*PACKAGES)
    assert "server.app" in graph and "tests.conftest" in graph
    assert len(graph) > 300


def test_no_module_imports_itself_back_through_others() -> None:
    found = circles(import_graph(*PACKAGES))
    assert not found, "import circles (break each one, e.g. with a module both can import):\n" + (
        "\n".join(" <-> ".join(part) for part in found)
    )


def test_a_circle_is_found_when_there_is_one(tmp_path: Path) -> None:
    # The check itself can fail: two modules of a throwaway package that import each other.
    root = tmp_path
    package = root / "circleprobe"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from circleprobe import b\n")
    (package / "b.py").write_text("def f() -> None:\n    from circleprobe import a  # noqa\n")
    (package / "c.py").write_text("from circleprobe import a\n")
    sys.path.insert(0, str(root))
    try:
        found = circles(import_graph("circleprobe"))
    finally:
        sys.path.remove(str(root))
        sys.modules.pop("circleprobe", None)
    assert found == [["circleprobe.a", "circleprobe.b"]]
