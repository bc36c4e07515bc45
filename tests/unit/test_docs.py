"""The docs hold (issue 27): every repository path they name exists, they cite the repository's
own docs and never a directory beside it, and the "Follow a move" walk of docs/architecture.md
names functions that import and resolve, parsed from the doc itself so the two cannot drift."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import click
import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted(
    [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "docs" / "spec").glob("*.md")]
)

# Paths the docs name that are made by running something, not kept in the repository.
GENERATED = ("test-artifacts/", ".venv/", "tests/browser/artifacts/")

# The repository's top-level entries: a path the docs name starting with one of these is a
# repository path and must exist.
TRACKED = subprocess.run(
    ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
).stdout.split()
TOP = sorted({name.split("/", 1)[0] for name in TRACKED if "/" in name})

# `server/services/lobby.py`, `domain/evaluator/`, `tests/unit/...`: a top-level directory, then
# path characters; not inside a URL or an absolute path (no `/`, `.` or word character before).
PATH = re.compile(r"(?<![\w./:-])((?:" + "|".join(map(re.escape, TOP)) + r")/[\w./*<>@-]*)")
LINK = re.compile(r"\]\(([^)\s]+)\)")
SIBLING = "../" + "shared"  # spelt in two so that this file does not cite it
OUTSIDE = ("DESIGN" + ".md", "RULES" + " §", "RULES" + ".md")  # the spec is docs/spec/rules.md


def named_paths(text: str) -> list[str]:
    """The repository paths `text` names, trailing punctuation and `...` taken off."""
    found = []
    for match in PATH.finditer(text):
        path = match.group(1)
        while path.endswith((".", ",", ":")):
            path = path[:-1]
        found.append(path)
    return found


def exists(path: str) -> bool:
    """Whether `path` is in the repository; `*` and a `<placeholder>` stand for any name."""
    path = re.sub(r"<[^>]*>", "*", path)
    if "*" in path:
        return any(ROOT.glob(path))
    return (ROOT / path).exists()


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: str(doc.relative_to(ROOT)))
def test_every_named_path_exists(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    missing = sorted(
        {path for path in named_paths(text) if not path.startswith(GENERATED) and not exists(path)}
    )
    assert not missing, f"{doc.relative_to(ROOT)} names paths that do not exist: {missing}"


def anchors(doc: Path) -> set[str]:
    """The anchors of a Markdown file's headings, as GitHub makes them (lower case, punctuation
    but `-` and `_` dropped, spaces as `-`); headings inside code blocks are not headings."""
    text = re.sub(r"```.*?```", "", doc.read_text(encoding="utf-8"), flags=re.S)
    headings = re.findall(r"^#+ (.*)$", text, flags=re.M)
    return {
        re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-") for heading in headings
    }


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: str(doc.relative_to(ROOT)))
def test_every_relative_link_exists(doc: Path) -> None:
    """A link to a file of the repository finds it, and its `#anchor` one of its headings."""
    text = doc.read_text(encoding="utf-8")
    missing = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue  # a URL
        path, _, anchor = target.partition("#")
        linked = doc.parent / path if path else doc
        found = linked.exists() and (
            not anchor or linked.suffix != ".md" or anchor in anchors(linked)
        )
        if not found:
            missing.append(target)
    assert not missing, f"{doc.relative_to(ROOT)} links to what does not exist: {missing}"


def test_named_paths_are_found() -> None:
    """The path pattern itself: what it must take, and what it must leave."""
    text = (
        "see `server/services/lobby.py`, tests/unit/..., `domain/evaluator/` and"
        " docs/spec/rules.md."
        " Not https://example.org/server/x.py nor /work/server/y.py."
    )
    assert named_paths(text) == [
        "server/services/lobby.py",
        "tests/unit/",
        "domain/evaluator/",
        "docs/spec/rules.md",
    ]


def test_no_file_cites_a_directory_beside_the_repository() -> None:
    """The repository cites its own docs (docs/, docs/spec/), never a sibling directory's
    (`SIBLING`) nor a design file kept outside it (`OUTSIDE`)."""
    citing = []
    for name in TRACKED:
        path = ROOT / name
        if path.suffix not in (".py", ".md", ".toml", ".js", ".html", ".sh", ".txt", ".cfg"):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if SIBLING in text or any(name in text for name in OUTSIDE):
            citing.append(name)
    assert not citing


# -- the "Follow a move" walk ------------------------------------------------------------------

WALK_HEADING = "## Follow a move"
FILE_SUFFIXES = ("py", "md", "json", "txt", "toml", "js", "html")
DOTTED = re.compile(r"`((?:domain|eventstore|server|records|bench)(?:\.\w+)+)`")


def walk_names() -> list[str]:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    start = text.find(WALK_HEADING)
    if start == -1:
        return []
    end = text.find("\n## ", start + len(WALK_HEADING))
    section = text[start : end if end != -1 else len(text)]
    return DOTTED.findall(section)


def resolve(dotted: str) -> object:
    """The object a `package.module.name[.attribute]` names: the longest prefix that imports,
    then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            found = getattr(found, name)
        return found
    raise ModuleNotFoundError(dotted)


def test_the_walk_names_enough() -> None:
    names = walk_names()
    assert len(names) >= 10, names
    assert any(name.startswith("server.entrypoints.") for name in names)
    assert any(name.startswith("domain.") for name in names)
    assert any(name.startswith("eventstore.") for name in names)
    assert any(name.startswith("server.readmodels.updates.") for name in names)


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: str(doc.relative_to(ROOT)))
def test_every_named_module_resolves(doc: Path) -> None:
    """Every `package.module[.name]` the docs name, in the walk or anywhere else, imports and
    resolves (a file name such as `records.py` is a path, not a module)."""
    text = doc.read_text(encoding="utf-8")
    missing = []
    for dotted in sorted(set(DOTTED.findall(text))):
        if dotted.rsplit(".", 1)[-1] in FILE_SUFFIXES:
            continue
        try:
            resolve(dotted)
        except (ImportError, AttributeError):
            missing.append(dotted)
    assert not missing, f"{doc.relative_to(ROOT)} names what does not exist: {missing}"


@pytest.mark.parametrize("dotted", walk_names())
def test_each_walk_name_resolves(dotted: str) -> None:
    """Each name imports and resolves; a lower-case one is a function, method or class (an
    upper-case one, like `MAX_BACKLOG`, a constant)."""
    found = resolve(dotted)
    last = dotted.rsplit(".", 1)[-1]
    assert last.isupper() or callable(found), f"{dotted} is not a function, method or class"


# -- the `crapette …` commands the docs and docstrings name ----------------------------------

FENCE = re.compile(r"```[^\n]*\n(.*?)```", re.S)
SPAN = re.compile(r"`([^`\n]+)`")
# `crapette` as a command (not `crapette-record/1`, not a word inside a path such as
# `/tmp/crapette.db`), then what follows it on the same line.
COMMAND = re.compile(r"(?<![\w.-])crapette((?:[ \t]+[^\s`]+)+)")
SUB = re.compile(r"[a-z][a-z0-9-]*(?:\|[a-z][a-z0-9-]*)*")  # `serve`, `engine|store|server`
SHELL_BREAK = ("|", "||", "&&", ";", "#", ">", "2>")
SOURCES = ("domain", "eventstore", "records", "server", "bench", "tests")


def doc_snippets(text: str) -> list[str]:
    """Each line of a fenced code block and each inline code span of a Markdown text."""
    lines = [line for block in FENCE.findall(text) for line in block.splitlines()]
    return lines + SPAN.findall(FENCE.sub("", text))


def docstrings(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    found = [ast.get_docstring(node) for node in ast.walk(tree) if isinstance(node, kinds)]
    return [text for text in found if text]


def unknown_commands(text: str, root: click.Command) -> list[str]:
    """The `crapette …` invocations in `text` that the click group `root` does not have: a
    sub-command (every one of `a|b|c`) that is not there, or an option the command lacks."""
    unknown = []
    for match in COMMAND.finditer(text):
        tokens = match.group(1).split()
        command: click.Command | None = root
        said = ["crapette"]
        taken = 0
        while (
            taken < len(tokens)
            and isinstance(command, click.Group)
            and SUB.fullmatch(tokens[taken])
        ):
            names = tokens[taken].split("|")
            if any(name not in command.commands for name in names):
                unknown.append(" ".join([*said, tokens[taken]]))
                command = None
                break
            said.append(tokens[taken])
            taken += 1
            command = command.commands[names[0]] if len(names) == 1 else None
        if command is None or command is root or isinstance(command, click.Group):
            continue
        known = {"--help"}
        for param in command.params:
            known.update(param.opts, param.secondary_opts)
        for token in tokens[taken:]:
            if token in SHELL_BREAK:
                break
            option = re.match(r"--[\w-]+", token)
            if option and option.group(0) not in known:
                unknown.append(" ".join([*said, option.group(0)]))
    return unknown


def test_the_command_check_finds_what_is_not_there() -> None:
    @click.group()
    def top() -> None: ...

    @top.group()
    def store() -> None: ...

    @store.command()
    @click.option("--to")
    def copy(to: str) -> None: ...

    @top.command()
    @click.argument("file")
    def verify(file: str) -> None: ...

    text = (
        "`crapette store copy --to X`, `.venv/bin/crapette verify match.json | less`,"
        " `crapette records export`, `crapette store copy|move`, `crapette verify f --fit`,"
        " crapette-record/1, `/tmp/crapette.db`"
    )
    assert unknown_commands(text, top) == [
        "crapette records",
        "crapette store copy|move",
        "crapette verify --fit",
    ]


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: str(doc.relative_to(ROOT)))
def test_every_crapette_command_in_the_docs_exists(doc: Path) -> None:
    from server.cli import main

    named = str(doc.relative_to(ROOT))
    unknown = [
        found
        for snippet in doc_snippets(doc.read_text(encoding="utf-8"))
        for found in unknown_commands(snippet, main)
    ]
    assert not unknown, f"{named} names commands `crapette --help` does not have: {unknown}"


def test_every_crapette_command_in_a_docstring_exists() -> None:
    from server.cli import main

    unknown = [
        f"{path.relative_to(ROOT)}: {found}"
        for package in SOURCES
        for path in sorted((ROOT / package).rglob("*.py"))
        for text in docstrings(path)
        for found in unknown_commands(text, main)
    ]
    assert not unknown, f"docstrings name commands `crapette --help` does not have: {unknown}"


# -- the service's parts, in the order GameService builds them ---------------------------------

SERVICE_HEADING = "## The service, one part per job"


def built_parts() -> list[str]:
    """The attributes `GameService.__init__` sets, in the order it sets them."""
    tree = ast.parse((ROOT / "server" / "service.py").read_text(encoding="utf-8"))
    init = next(
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and node.name == "__init__"
    )
    parts = []
    for node in ast.walk(init):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        else:
            continue
        for target in targets:
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                parts.append((node.lineno, target.attr))
    return [name for _, name in sorted(parts)]


def table_parts() -> list[str]:
    """The part names of the table in docs/architecture.md § The service, in the page's order."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    start = text.index(SERVICE_HEADING)
    section = text[start : text.index("\n## ", start + 1)]
    return [re.sub(r"[`\s]", "", row.split("|")[1]) for row in re.findall(r"^\|.*", section, re.M)][
        2:
    ]


def test_the_service_table_lists_the_parts_in_the_order_they_are_built() -> None:
    built = built_parts()
    # The publisher and leases may come from outside; `leases` is handed to the autopilot.
    listed = [name for name in table_parts() if name != "leases"]
    missing = [name for name in listed if name not in built]
    assert not missing, f"docs/architecture.md lists parts GameService does not build: {missing}"
    order = [name for name in built if name in listed]
    assert listed == order, f"GameService builds them in this order: {order}"


# -- the walk's order is the order the code runs -------------------------------------------------


def walk_codes() -> dict[object, list[str]]:
    """The code object of each function or method the walk names (classes and constants left
    out), with the names that stand for it (`domain.decide` is `domain.engine.decide`)."""
    codes: dict[object, list[str]] = {}
    for name in dict.fromkeys(walk_names()):  # each once, at its first mention
        found = resolve(name)
        if isinstance(found, property):
            found = found.fget
        if isinstance(found, type) or not callable(found):
            continue
        code = getattr(inspect.unwrap(found), "__code__", None)
        if code is not None:
            codes.setdefault(code, []).append(name)
    return codes


def first_view(client: Any) -> dict[str, Any] | None:
    """The newest view among the messages a Socket.IO test client received."""
    view = None
    for message in client.get_received():
        if message["name"] == "snapshot":
            view = message["args"][0].get("view")
        elif message["name"] == "updates":
            view = message["args"][0]["updates"][-1].get("view") or view
    return view


def test_the_walk_names_its_functions_in_the_order_they_run(tmp_path: Path) -> None:
    """One real move through the app factory's server (threading mode, SQLite), traced: each
    function of the walk that runs must first run in the order the walk first names it. (What
    does not run for a plain move, a refusal's or a conflict's path, is left out.)"""
    from server.app import create_app
    from server.config import ServerConfig
    from tests.integration.harness import choose

    url = f"sqlite:///{tmp_path}/walk.sqlite3"
    app, socketio = create_app(ServerConfig(async_mode="threading", store_url=url))
    service = app.extensions["crapette"]
    opened = service.openings.open_table(name="Ann")
    match_id = opened["match_id"]
    joined = service.seats.join_seat(match_id, "Bob")
    seats = []
    for token in (opened["seat_token"], joined["seat_token"]):
        client = socketio.test_client(app)
        ack = client.emit(
            "join_table",
            {"match_id": match_id, "seat_token": token, "last_version": None},
            callback=True,
        )
        assert ack["ok"], ack
        seats.append((client, token))
    mover = None
    for _ in range(100):  # the first game is dealt by the server on its own
        for client, token in seats:
            view = first_view(client)
            action = choose(view) if view else None
            if action is not None:
                mover = (client, token, action)
        if mover is not None:
            break
        service.autopilot.tick()
        time.sleep(0.02)
    assert mover is not None, "no seat had anything to do"
    client, token, action = mover

    codes = walk_codes()
    ran: list[object] = []

    def watch(frame: Any, event: str, arg: object) -> None:
        if event == "call" and frame.f_code in codes and frame.f_code not in ran:
            ran.append(frame.f_code)

    command = {"match_id": match_id, "seat_token": token, "command_id": "walk-0001"}
    threading.setprofile(watch)
    sys.setprofile(watch)
    try:
        ack = client.emit("command", {**command, "action": action}, callback=True)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
        for client, _ in seats:
            client.disconnect()
        app.extensions["crapette_store"].close()
    assert ack["ok"], ack

    first_run = {name: ran.index(code) for code in ran for name in codes[code]}
    named = [name for name in dict.fromkeys(walk_names()) if name in first_run]
    assert len(named) >= 20, named  # the path was really taken, not refused early
    run_order = sorted(named, key=lambda name: first_run[name])
    assert named == run_order, "docs/architecture.md § Follow a move: " + "; ".join(
        f"{a} is named before {b}, which runs first"
        for a, b in zip(named, named[1:], strict=False)
        if first_run[a] > first_run[b]
    )
