"""The replay page's own ES modules, made to run from one file opened from disk.

A browser refuses to load a module script from a file:// URL (a module is fetched in CORS mode,
and a file has no origin), so the modules cannot stay files beside the page. Here each module of
the page's graph becomes a `data:` URL, and its imports name the others by a bare specifier
(`crapette/js/board.js`) that an inline import map resolves to those URLs. The modules stay the
same modules: one instance each, live bindings, top-level await and evaluation order as the
server's page has them; only their import specifiers are rewritten. No JS build chain: this is
the whole step (docs/records.md § HTML)."""

from __future__ import annotations

import base64
import json
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

# A static import or re-export at the start of a line (the project's modules are formatted so),
# possibly over several lines: `import { a,\n b } from "./x.js";`, `import "./x.js";`.
_STATIC_IMPORT = re.compile(
    r'^((?:import|export)\b[^;"\']*?\bfrom\s*|import\s*)(["\'])([^"\']+)\2', re.MULTILINE
)
# A module's source map is for a developer's tools; a viewer's browser would ask for it.
_SOURCE_MAP = re.compile(r"^//# sourceMappingURL=.*$", re.MULTILINE)
PREFIX = "crapette/"


class BundleError(Exception):
    """A module of the graph is missing, or imports something that is no file of web/."""


@dataclass(frozen=True)
class ModuleGraph:
    """Every module reachable from the entries, by path under web/ (`js/replay.js`), with its
    imports rewritten to bare specifiers."""

    sources: dict[str, str]

    def import_map(self) -> str:
        """The import map (JSON) that resolves each bare specifier to its module's data: URL."""
        imports = {PREFIX + path: data_url(src) for path, src in sorted(self.sources.items())}
        return json.dumps({"imports": imports}, separators=(",", ":"))


def data_url(source: str) -> str:
    encoded = base64.b64encode(source.encode()).decode("ascii")
    return f"data:text/javascript;base64,{encoded}"


def specifier(path: str) -> str:
    """The bare specifier a module of web/ is imported by in the bundle."""
    return PREFIX + path


def module_graph(web_dir: Path, entries: list[str]) -> ModuleGraph:
    """The modules reachable from `entries` (paths under `web_dir`, such as `js/replay.js`)."""
    sources: dict[str, str] = {}
    todo = list(entries)
    while todo:
        path = todo.pop()
        if path in sources:
            continue
        file = web_dir / path
        if not file.is_file():
            raise BundleError(f"the replay page's module {path} is not in {web_dir}")
        source, imported = _rewrite(path, file.read_text(encoding="utf-8"))
        sources[path] = source
        todo.extend(imported)
    return ModuleGraph(sources)


def _rewrite(path: str, source: str) -> tuple[str, list[str]]:
    """The module's source with its imports named by bare specifier, and the paths it imports."""
    imported: list[str] = []

    def bare(match: re.Match[str]) -> str:
        head, quote, spec = match.groups()
        if not spec.startswith(("./", "../")):
            raise BundleError(f"{path} imports {spec!r}: only files of web/ can be bundled")
        target = posixpath.normpath(posixpath.join(posixpath.dirname(path), spec))
        if target.startswith("../"):
            raise BundleError(f"{path} imports {spec!r}, outside web/")
        imported.append(target)
        return f"{head}{quote}{specifier(target)}{quote}"

    rewritten = _STATIC_IMPORT.sub(bare, source)
    return _SOURCE_MAP.sub("", rewritten), imported
