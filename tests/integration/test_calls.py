"""The Crapette call in `call` mode: a right call voids the fault, a wrong call changes nothing.

The test finds a faulty action the way a careless player would make one: it reads the match from
the store, folds it with the domain and asks `fault_of` for each legal action."""

from __future__ import annotations

from typing import Any

import domain
from eventstore import open_store
from tests.integration.conftest import seat_two
from tests.integration.harness import Client, ServerProcess, choose, view_of

MAX_ACTIONS = 1500


def current_state(server: ServerProcess, match_id: str) -> Any:
    store = open_store(f"sqlite:///{server.data_dir / 'store.sqlite3'}")
    try:
        records = store.read(f"match-{match_id}")
    finally:
        store.close()
    return domain.fold([domain.event_from_payload(r.type, r.data) for r in records])


def play_until(
    server: ServerProcess, match_id: str, players: list[Client], wanted: str
) -> tuple[Client, Client, dict[str, Any]]:
    """Play the policy until the mover has a legal action that is a fault (`wanted`="fault") or
    not (`wanted`="clean"); return (mover, opponent, that action) without sending it."""
    for _ in range(MAX_ACTIONS):
        version = max(p.version for p in players)
        for player in players:
            player.wait_version(version)
        view = players[0].view
        assert view is not None and not view["over"], "the game ended first"
        seat = view["to_move"]
        mover, other = players[seat], players[1 - seat]
        state = current_state(server, match_id)
        assert state.version == version
        legal = [a for a in (mover.view or {})["legal"] if a["do"] not in ("resign", "call")]
        legal = [a for a in legal if not a["do"].endswith("draw")]
        for action in legal:
            parsed = domain.action_from_json({k: v for k, v in action.items() if k != "text"})
            fault = domain.fault_of(state, parsed)
            if (fault is not None) == (wanted == "fault") and action["do"] == "move":
                return mover, other, action
        ack = mover.send(match_id, choose(mover.view or {}) or {})
        assert ack["ok"], ack
    raise AssertionError(f"no {wanted} action found")


def call_of(client: Client) -> dict[str, Any]:
    calls = [a for a in (client.view or {})["legal"] if a["do"] == "call"]
    assert calls, f"no call offered to seat {client.view and client.view['viewer']}"
    call: dict[str, Any] = calls[0]
    return call


def test_right_call_voids_the_fault_and_passes_the_turn(
    server: ServerProcess, clients: list[Client]
) -> None:
    match_id, ann, bob = seat_two(server, clients, preset="classic")
    mover, caller, fault = play_until(server, match_id, [ann, bob], "fault")
    ack = mover.send(match_id, fault)
    assert ack["ok"], ack
    caller.wait_version(ack["version"])
    before_call = ack["version"]
    ack = caller.send(match_id, call_of(caller))
    assert ack["ok"], ack
    for client in (mover, caller):
        client.wait_version(ack["version"])
    events = [u["event"] for u in caller.updates if u["version"] > before_call]
    called = [e for e in events if e and e["type"] == "CrapetteCalled"]
    assert called and called[0]["verdict"] == "right"
    assert any(e and e["type"] == "ActionVoided" for e in events)
    caller_seat = view_of(caller)["viewer"]
    assert view_of(caller)["to_move"] == caller_seat or view_of(caller)["over"]
    # The offender saw the same verdict.
    seen = [u["event"] for u in mover.updates if u["version"] > before_call]
    assert [e and e["type"] for e in seen] == [e and e["type"] for e in events]


def test_wrong_call_changes_nothing(server: ServerProcess, clients: list[Client]) -> None:
    match_id, ann, bob = seat_two(server, clients, preset="classic")
    mover, caller, clean = play_until(server, match_id, [ann, bob], "clean")
    ack = mover.send(match_id, clean)
    assert ack["ok"], ack
    caller.wait_version(ack["version"])
    piles_before = view_of(caller)["piles"]
    to_move_before = view_of(caller)["to_move"]
    ack = caller.send(match_id, call_of(caller))
    assert ack["ok"], ack
    caller.wait_version(ack["version"])
    called = [u["event"] for u in caller.updates if u["event"]]
    assert called[-1]["type"] == "CrapetteCalled" or any(
        e["type"] == "CrapetteCalled" and e["verdict"] == "wrong" for e in called[-3:]
    )
    verdicts = [e["verdict"] for e in called if e["type"] == "CrapetteCalled"]
    assert verdicts[-1] == "wrong"
    assert view_of(caller)["piles"] == piles_before
    assert view_of(caller)["to_move"] == to_move_before
