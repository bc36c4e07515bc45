"""No class in `server/` over 300 lines (issue 27): a class that big holds several use cases,
which belong in parts of their own (`server.service.GameService` composes them). Every module
of the package is read with `ast`, so a class nested anywhere counts too."""

from __future__ import annotations

import ast
from pathlib import Path

import server

MAX_CLASS_LINES = 300
SERVER = Path(server.__file__).parent


def class_sizes(source: str) -> list[tuple[str, int, int]]:
    """(name, first line, lines) of every class in a module's source, nested ones included; a
    class's lines run from its first decorator to its last statement."""
    sizes = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            end = node.end_lineno if node.end_lineno is not None else node.lineno
            sizes.append((node.name, first, end - first + 1))
    return sizes


def test_the_measure_counts_a_class_from_its_decorator_to_its_end() -> None:
    source = "@dataclass\nclass A:\n    x: int\n\n    def f(self) -> None:\n        pass\n"
    source += "def g() -> None:\n    class B:\n        pass\n"
    assert class_sizes(source) == [("A", 1, 6), ("B", 8, 2)]


def test_no_class_in_server_is_over_300_lines() -> None:
    modules = sorted(SERVER.rglob("*.py"))
    assert len(modules) > 20  # the whole package, not an empty directory
    too_big = [
        f"{path.relative_to(SERVER.parent)}:{first} class {name}: {lines} lines"
        for path in modules
        for name, first, lines in class_sizes(path.read_text(encoding="utf-8"))
        if lines > MAX_CLASS_LINES
    ]
    assert too_big == [], "split these into use cases of their own:\n" + "\n".join(too_big)
