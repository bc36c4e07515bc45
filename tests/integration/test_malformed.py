"""200 malformed messages of every shape: each gets a structured error; the connection and the
server stay up and a good command still works afterwards."""

from __future__ import annotations

import itertools
from typing import Any

from tests.integration.conftest import seat_two
from tests.integration.harness import Client, ServerProcess, choose, view_of

SHAPES: list[Any] = [
    None, 0, -1, 3.5, True, "", "text", [], [1, 2], {}, {"x": 1}, "\x00" * 50, "é" * 5000,
    {"match_id": None}, {"match_id": 42}, {"match_id": "m-nonexistent00"}, {"match_id": "../etc"},
    {"match_id": "m-abcdef", "seat_token": 7}, {"match_id": "m-abcdef", "last_version": -3},
    {"match_id": "m-abcdef", "last_version": "ten"}, {"match_id": ["m-abcdef"]},
    b"\x00\x01binary", {"match_id": b"m-abcdef"}, {"seat_token": 1e308, "match_id": {"$gt": ""}},
]  # fmt: skip


def bad_commands(match_id: str, token: str) -> list[Any]:
    base = {"match_id": match_id, "seat_token": token, "command_id": "cmd-00000001"}
    actions: list[Any] = [
        None, 5, "T3-F0", [], {}, {"do": "fly"}, {"do": "move"}, {"do": "move", "seat": 0},
        {"do": "move", "seat": 0, "from": "Z9", "to": "F0"}, {"do": "move", "seat": 7, "from": "R0",
        "to": "F0"}, {"do": "move", "seat": "0", "from": "R0", "to": "F0"},
        {"do": "call", "seat": 0, "move": "nonsense"}, {"do": "turn", "seat": None},
        {"do": "move", "seat": 0, "from": "R0", "to": "F0", "card": "ZZ"},
        {"do": {"nested": True}, "seat": 0},
    ]  # fmt: skip
    commands: list[Any] = [{**base, "action": a} for a in actions]
    commands += [
        {**base, "command_id": "x"}, {**base, "command_id": 5, "action": {"do": "turn", "seat": 0}},
        {**base, "command_id": "bad id with spaces"},
        {k: v for k, v in base.items() if k != "match_id"},
        {**base, "action": {"do": "turn", "seat": 0}, "extra": 1},
        {**base, "seat_token": "short", "action": {"do": "turn", "seat": 0}},
    ]  # fmt: skip
    return commands


def test_two_hundred_malformed_messages(server: ServerProcess, clients: list[Client]) -> None:
    match_id, ann, bob = seat_two(server, clients, preset="beginner")
    ann.wait_for(lambda c: c.view is not None, "the first view")
    version = ann.version
    messages: list[tuple[str, Any]] = []
    events = ("join_table", "command", "claim", "leave_table")
    for event, shape in itertools.product(events, SHAPES):
        named = isinstance(shape, dict) and isinstance(shape.get("match_id"), str | bytes)
        if event == "leave_table" and named:
            continue  # leaving a table one is not at is well-formed (and a no-op)
        messages.append((event, shape))
    messages += [("command", c) for c in bad_commands(match_id, ann.token or "")]
    messages += [("no_such_event", s) for s in SHAPES[:10]]
    messages += [("claim", {"match_id": match_id, "seat_token": ann.token, "what": w})
                 for w in ("nothing", None, 3, "", "resign!")]  # fmt: skip
    while len(messages) < 200:
        messages += [("command", c) for c in bad_commands(match_id, ann.token or "")]
    messages = messages[:200]

    errors_before = sum(1 for m in ann.messages if m[0] in ("error", "refused"))
    for event, payload in messages:
        ack = ann.sio.call(event, payload, timeout=10)
        assert isinstance(ack, dict) and ack["ok"] is False, (event, payload, ack)
        assert isinstance(ack["code"], str) and isinstance(ack["message"], str)
        assert ack["code"] != "internal", (event, payload, ack)
    ann.wait_for(
        lambda c: sum(1 for m in c.messages if m[0] in ("error", "refused")) >= errors_before + 200,
        "one error message per malformed message",
    )
    assert ann.sio.connected and server.alive()
    # Nothing was applied, and the same connection still plays.
    assert server.get(f"/api/matches/{match_id}/view").json()["version"] == version
    ann.join(match_id, last_version=version)
    mover = (ann, bob)[view_of(ann)["to_move"]]
    ack = mover.send(match_id, choose(mover.view or {}) or {})
    assert ack["ok"], ack


def test_malformed_http_bodies(server: ServerProcess) -> None:
    bodies: tuple[Any, ...] = (
        None,
        [],
        "x",
        {"name": 5},
        {"name": "A", "seat": 2},
        {"name": "A", "bot": "god"},
    )
    for body in bodies:
        response = server.post("/api/tables", body)
        assert response.status_code == 400, (body, response.text)
        assert response.json()["code"] == "invalid"
    response = server.post("/api/tables/m-0000000000/join", {"name": "A"})
    assert response.status_code == 404 and response.json()["code"] == "not_found"
    assert server.get("/api/matches/m-0000000000/replay").status_code == 404
    assert server.get("/api/tables/m-0000000000").json()["code"] == "not_found"


def test_packets_nested_5000_deep_log_one_line_a_minute(
    server: ServerProcess, clients: list[Client]
) -> None:
    """Issue 28: each such packet is dropped (no answer, the connection stays) and logged, but
    as one line per client and minute, not as a 27-line traceback each time."""
    match_id, ann, bob = seat_two(server, clients, preset="beginner")
    ann.wait_for(lambda c: c.view is not None, "the first view")
    start = len(server.log())
    deep = "2" + "[" * 5000 + "]" * 5000  # a Socket.IO EVENT packet, 5,000 lists deep
    for client in (ann, bob):  # two connections from one address: one client
        for _ in range(25):
            client.sio.eio.send(deep)
    # Still connected and still answered: a good message after the 50 bad ones.
    ack = ann.sio.call("join_table", {"match_id": match_id, "seat_token": ann.token}, timeout=10)
    assert ack["ok"], ack
    assert ann.sio.connected and bob.sio.connected and server.alive()
    logged = server.log()[start:]
    lines = [line for line in logged.splitlines() if "cannot be decoded" in line]
    assert len(lines) == 1, logged[-3000:]
    assert "127.0.0.1" in lines[0] and "RecursionError" in lines[0]
    assert "Traceback" not in logged and len(logged.splitlines()) <= 3, logged[-3000:]
