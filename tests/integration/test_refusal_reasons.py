"""A refused command says which message it is and what it names, by code (issue 19): the browser
client words it in the player's language; `message` stays English for API clients."""

from __future__ import annotations

from tests.integration.conftest import seat_two
from tests.integration.harness import Client, ServerProcess, view_of


def test_a_refusal_carries_its_reason_and_params(
    server: ServerProcess, clients: list[Client]
) -> None:
    match_id, ann, bob = seat_two(server, clients, preset="beginner")
    ann.wait_for(lambda c: c.view is not None and "to_move" in c.view, "a view")
    mover, waiting = (ann, bob) if view_of(ann)["to_move"] == 0 else (bob, ann)
    seat = 0 if mover is ann else 1
    # A foundation is empty at the start: nothing to move from it.
    ack = mover.send(match_id, {"do": "move", "seat": seat, "from": "F0", "to": "T0"})
    assert ack["ok"] is False and ack["code"] == "refused" and ack["rule"] == "not available"
    assert ack["reason"] == "pile_empty" and ack["params"]["pile"] == "F0", ack
    assert ack["message"] == "F0 is empty"
    # A rule with one message is its own reason.
    ack = waiting.send(match_id, {"do": "turn", "seat": 1 - seat})
    assert (ack["rule"], ack["reason"]) == ("not your turn", "not_your_turn"), ack
