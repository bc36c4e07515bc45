"""A rotation table (docs/protocol.md, rotation tables) with real Socket.IO clients against a real
server process: three people, two games, the seat changes, a reconnect of the waiting player, a
claim. docs/spec/rules.md §10."""

from __future__ import annotations

import time
from typing import Any

from tests.integration.harness import Client, ServerProcess


def _call(client: Client, event: str, match_id: str, **data: Any) -> dict[str, Any]:
    payload = {"match_id": match_id, "seat_token": client.token, **data}
    reply: dict[str, Any] = client.sio.call(event, payload, timeout=10)
    return reply


def _rotation(server: ServerProcess, match_id: str) -> dict[str, Any]:
    table: dict[str, Any] = server.get(f"/api/tables/{match_id}").json()
    rotation: dict[str, Any] = table["rotation"]
    return rotation


def _events(client: Client, kind: str) -> list[dict[str, Any]]:
    return [u["event"] for u in client.updates if u["event"]["type"] == kind]


def test_three_people_two_games_seat_changes_a_reconnect_and_a_claim(
    server: ServerProcess, clients: list[Client]
) -> None:
    opened = server.open_table(preset="italian-four", match="wins:3")
    match_id = opened["match_id"]
    bob_seat = server.join(match_id, "Bob")
    cid_seat = server.join(match_id, "Cid")
    assert cid_seat["seat"] is None and cid_seat["waiting"] is True
    refused = server.post(f"/api/tables/{match_id}/join", {"name": "Cid"})
    assert refused.status_code == 409 and "already at this table" in refused.json()["message"]

    ann = Client(server, opened["seat_token"]).connect()
    bob = Client(server, bob_seat["seat_token"]).connect()
    cid = Client(server, cid_seat["seat_token"]).connect()
    clients.extend([ann, bob, cid])
    acks = {
        name: c.join(match_id, last_version=0)
        for name, c in zip("ABC", (ann, bob, cid), strict=True)
    }
    assert acks["A"]["seat"] == 0 and acks["A"]["waiting"] is False and acks["A"]["name"] == "Ann"
    assert acks["C"]["seat"] is None and acks["C"]["waiting"] is True and acks["C"]["name"] == "Cid"
    version = acks["A"]["version"]
    cid.wait_version(version)
    # The waiting person sees what a spectator sees: no legal actions, hidden hands.
    view = cid.view
    assert view is not None and view["viewer"] is None and view["legal"] == []
    assert all(card is None for card in view["piles"]["H0"])
    assert view["session"]["queue"] == ["Cid"]
    reply = cid.send(match_id, {"do": "resign", "seat": 0})
    assert reply["ok"] is False and reply["code"] == "forbidden", reply

    # Game 1: Bob resigns, Ann wins and gives seat 0 to Cid (winner_out).
    ack = bob.send(match_id, {"do": "resign", "seat": 1})
    assert ack["ok"], ack
    for client in (ann, bob, cid):
        client.wait_version(ack["version"])
    rotated = _events(cid, "SeatsRotated")
    assert rotated and rotated[0]["players"] == ["Cid", "Bob"] and rotated[0]["left"] == "Ann"
    cid.wait_for(lambda c: bool(c.received("seat")), "Cid's seat message")
    ann.wait_for(lambda c: bool(c.received("seat")), "Ann's seat message")
    to_cid, to_ann = cid.received("seat")[-1], ann.received("seat")[-1]
    assert to_cid["seat"] == 0 and to_cid["waiting"] is False and to_cid["view"]["viewer"] == 0
    assert to_ann["seat"] is None and to_ann["waiting"] is True and to_ann["view"]["viewer"] is None
    assert to_cid["version"] == ack["version"]
    assert bob.received("seat") == []  # Bob kept his seat
    bob.wait_for(
        lambda c: (c.table or {}).get("rotation", {}).get("seated") == ["Cid", "Bob"],
        "the table message after the seat change",
    )
    rotation = _rotation(server, match_id)
    assert rotation["seated"] == ["Cid", "Bob"] and rotation["queue"] == ["Ann"]
    assert [p["wins"] for p in rotation["people"]] == [1, 0, 0]

    # Game 2 starts once Cid and Bob are ready; Cid plays from his seat on the same connection.
    assert _call(ann, "next_game", match_id)["ok"] is False  # Ann waits: not hers to start
    for client in (cid, bob):
        assert _call(client, "next_game", match_id)["ok"] is True
    cid.wait_for(lambda c: bool(_events(c, "GameStarted")[1:]), "game 2")
    started = cid.version
    ann.wait_version(started)
    assert (
        cid.view is not None and cid.view["viewer"] == 0 and cid.view["players"] == ["Cid", "Bob"]
    )
    assert ann.view is not None and ann.view["viewer"] is None and ann.view["legal"] == []

    # The waiting Ann's page reloads: she comes back as herself, waiting, with what she missed.
    seen = ann.version
    ann.sio.eio.disconnect(abort=True)
    ann.sio.disconnect()
    first = cid.view["to_move"] == 0 and cid.view["legal"]
    mover = cid if first else bob
    action = next(a for a in (mover.view or {}).get("legal", []) if a["do"] != "call")
    assert mover.send(match_id, action)["ok"]
    back = Client(server, ann.token).connect()
    clients.append(back)
    back.by_version = {v: u for v, u in ann.by_version.items() if v <= seen}
    rejoined = back.join(match_id, last_version=seen)
    assert rejoined["seat"] is None and rejoined["waiting"] is True and rejoined["name"] == "Ann"
    back.wait_version(rejoined["version"])
    assert back.duplicates == [] and back.view is not None and back.view["viewer"] is None

    # Bob goes away; past the grace period Cid claims his seat for a bot (a waiting person may not).
    bob.close()
    time.sleep(server.grace_s + 0.5)
    refused_claim = _call(back, "claim", match_id, what="bot")
    assert refused_claim["ok"] is False and refused_claim["code"] == "forbidden"
    claimed = _call(cid, "claim", match_id, what="bot")
    assert claimed["ok"] is True, claimed
    bob_person = next(p for p in _rotation(server, match_id)["people"] if p["name"] == "Bob")
    assert bob_person["bot"] == "steady" and bob_person["seat"] == 1

    # Game 2 ends: Cid resigns, Bob (his bot) wins and gives seat 1 to Ann, on her new connection.
    ack = cid.send(match_id, {"do": "resign", "seat": 0})
    assert ack["ok"], ack
    back.wait_for(lambda c: bool(c.received("seat")), "Ann seated again")
    assert (
        back.received("seat")[-1]["seat"] == 1 and back.received("seat")[-1]["view"]["viewer"] == 1
    )
    rotation = _rotation(server, match_id)
    assert rotation["seated"] == ["Cid", "Ann"] and rotation["queue"] == ["Bob"]
    assert rotation["last_change"]["game_index"] == 1 and rotation["last_change"]["left"] == "Bob"
    totals = {p["name"]: (p["total"], p["wins"]) for p in rotation["people"]}
    assert totals["Ann"][1] == 1 and totals["Bob"][1] == 1 and totals["Cid"] == (0, 0)


def test_a_rematch_of_a_finished_session_brings_everyone_with_their_tokens(
    server: ServerProcess, clients: list[Client]
) -> None:
    """Another session (docs/protocol.md, rotation tables): the two seated at the end keep their
    seats, the others wait in the queue in the order they had, bots as bots; each person's
    token is his at the new table, so he arrives without joining again."""
    opened = server.open_table(
        preset="italian-four", match="wins:1", options={"rotation": "loser_out"}
    )
    match_id = opened["match_id"]
    bob_seat = server.join(match_id, "Bob")
    cid_seat = server.join(match_id, "Cid")
    queued_bot = server.join(match_id, "any", bot="sharp", seat_token=cid_seat["seat_token"])
    assert queued_bot["name"] == "sharp bot" and queued_bot["seat_token"] is None
    ann = Client(server, opened["seat_token"]).connect()
    bob = Client(server, bob_seat["seat_token"]).connect()
    cid = Client(server, cid_seat["seat_token"]).connect()
    clients.extend([ann, bob, cid])
    for client in (ann, bob, cid):
        client.join(match_id, last_version=0)

    # Bob resigns: Ann has the one win the session needs; nobody changes seat after it.
    ack = bob.send(match_id, {"do": "resign", "seat": 1})
    assert ack["ok"], ack
    cid.wait_for(lambda c: bool(_events(c, "MatchWon")), "the session's end")
    old = _rotation(server, match_id)
    assert old["winner"] == "Ann" and old["seated"] == ["Ann", "Bob"]
    assert old["queue"] == ["Cid", "sharp bot"]
    # A waiting person has no seat to offer from; the seated pair offer and accept.
    waiting_offer = server.post(
        f"/api/tables/{match_id}/rematch", {"seat_token": cid.token, "answer": "offer"}
    )
    assert waiting_offer.status_code == 403, waiting_offer.text
    offered = server.post(f"/api/tables/{match_id}/rematch", {"seat_token": ann.token})
    assert offered.json()["status"] == "offered", offered.text
    accepted = server.post(
        f"/api/tables/{match_id}/rematch", {"seat_token": bob.token, "answer": "accept"}
    )
    assert accepted.status_code == 201 and accepted.json()["status"] == "opened", accepted.text
    new_id = accepted.json()["match_id"]
    # Every room of the old table hears of it, the waiting Cid too.
    cid.wait_for(lambda c: (c.table or {}).get("rematch") == new_id, "the rematch's table")

    table = server.get(f"/api/tables/{new_id}").json()
    assert table["status"] == "playing" and table["rematch_of"] == match_id
    assert table["ruleset"]["rotation"] == "loser_out" and table["ruleset"]["match"] == "wins:1"
    rotation = table["rotation"]
    assert rotation["seated"] == ["Ann", "Bob"] and rotation["queue"] == ["Cid", "sharp bot"]
    people = {
        p["name"]: (p["seat"], p["waiting"], p["bot"], p["total"]) for p in rotation["people"]
    }
    assert people == {
        "Ann": (0, None, None, 0),
        "Bob": (1, None, None, 0),
        "Cid": (None, 0, None, 0),
        "sharp bot": (None, 1, "sharp", 0),
    }
    assert rotation["winner"] is None and rotation["can_join"] is False  # four at the table

    # Each arrives with the token he had: Ann and Bob seated, Cid waiting, nobody joins again.
    acks = {}
    for name, token in (("Ann", ann.token), ("Bob", bob.token), ("Cid", cid.token)):
        client = Client(server, token).connect()
        clients.append(client)
        acks[name] = client.join(new_id, last_version=0)
    assert (acks["Ann"]["seat"], acks["Ann"]["waiting"]) == (0, False)
    assert (acks["Bob"]["seat"], acks["Bob"]["waiting"]) == (1, False)
    assert (acks["Cid"]["seat"], acks["Cid"]["waiting"], acks["Cid"]["name"]) == (None, True, "Cid")
    joined = server.post(f"/api/tables/{new_id}/join", {"name": "Cid"})
    assert joined.status_code == 409, joined.text  # he is there already


def test_only_a_person_at_the_table_adds_a_bot_to_the_queue_one_at_a_time(
    server: ServerProcess, clients: list[Client]
) -> None:
    """docs/spec/rules.md §10: a bot waits in a rotation table's queue only when a person at the
    table (seated or waiting) asks with his seat token, and only one bot waits at a time, so
    people can still come in: otherwise `403 forbidden` with its `reason`, nothing written."""
    opened = server.open_table(name="Ann", preset="italian-four")
    match_id = opened["match_id"]
    bob = server.join(match_id, "Bob")
    other = server.open_table(name="Eve", preset="italian-four")  # a token of another table
    ann = Client(server, opened["seat_token"]).connect()
    clients.append(ann)
    ann.join(match_id, last_version=0)

    def add(**body: Any) -> Any:
        return server.post(f"/api/tables/{match_id}/join", {"name": "x", "bot": "steady", **body})

    for token in (None, other["seat_token"]):
        refused = add(seat_token=token)
        assert refused.status_code == 403, refused.text
        assert refused.json()["code"] == "forbidden"
        assert refused.json()["reason"] == "bot_by_person"
    assert [p["name"] for p in _rotation(server, match_id)["people"]] == ["Ann", "Bob"]

    # A seated person adds one: everyone at the table hears of it.
    added = add(seat_token=bob["seat_token"])
    assert added.status_code == 200, added.text
    assert added.json()["name"] == "steady bot" and added.json()["seat_token"] is None
    ann.wait_for(
        lambda c: ((c.table or {}).get("rotation") or {}).get("queue") == ["steady bot"],
        "the bot in the queue",
    )
    # Nobody may add a second while it waits; a person may still come in.
    refused = add(seat_token=opened["seat_token"], bot="sharp")
    assert refused.status_code == 403, refused.text
    body = refused.json()
    assert body["reason"] == "one_bot_waiting" and body["params"] == {"name": "steady bot"}
    assert "one bot at a time" in body["message"]
    cid = server.join(match_id, "Cid")
    assert cid["waiting"] is True
    assert _rotation(server, match_id)["queue"] == ["steady bot", "Cid"]
