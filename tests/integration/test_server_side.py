"""What the server does on its own: bots at tables, clocks, disconnect claims, rematches, and the
threading async mode."""

from __future__ import annotations

import html
import re
import time
from collections.abc import Callable, Iterator

import pytest

from server.readmodels.share.preview import preview_tags, with_preview
from tests.conftest import REPO_ROOT
from tests.integration.conftest import seat_two
from tests.integration.harness import Client, ServerProcess, choose, table_of, view_of


@pytest.fixture(scope="module", params=["threading"])
def threaded(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    process = ServerProcess(tmp_path_factory.mktemp("threaded"), async_mode=request.param)
    process.start()
    try:
        yield process
    finally:
        process.stop()


def _bot_played(client: Client) -> bool:
    return any(u["event"] and u["event"].get("seat") == 1 for u in client.updates)


def play_against_bot(
    server: ServerProcess,
    clients: list[Client],
    moves: int,
    until: Callable[[Client], bool] | None = None,
) -> Client:
    """Ann plays `moves` actions against a random bot; with `until`, she goes on (at most 400
    actions) until it holds: her first turn alone can take a dozen actions."""
    opened = server.open_table(name="Ann", preset="beginner", bot="random")
    ann = Client(server, opened["seat_token"]).connect()
    clients.append(ann)
    ann.join(opened["match_id"], last_version=0)
    made = 0
    while made < moves or (until is not None and not until(ann) and made < 400):
        ann.wait_for(
            lambda c: c.view is not None and (c.view["to_move"] == 0 or c.view["over"]),
            "my turn",
        )
        view = ann.view or {}
        if view["over"]:
            break
        ack = ann.send(opened["match_id"], choose(view) or {})
        assert ack["ok"], ack
        ann.wait_version(ack["version"])
        made += 1
    return ann


def test_a_bot_plays_its_seat(server: ServerProcess, clients: list[Client]) -> None:
    ann = play_against_bot(server, clients, 12, until=_bot_played)
    assert _bot_played(ann), "the bot never played"


@pytest.mark.slow
def test_threading_async_mode_smoke(threaded: ServerProcess, clients: list[Client]) -> None:
    info = threaded.get("/api/server-info").json()
    assert info["async_mode"] == "threading"
    play_against_bot(threaded, clients, 5)
    match_id, ann, bob = seat_two(threaded, clients, preset="beginner")
    ann.wait_for(lambda c: c.view is not None, "a view")
    mover = (ann, bob)[view_of(ann)["to_move"]]
    assert mover.send(match_id, choose(mover.view or {}) or {})["ok"]


def test_time_limit_ends_the_turn(server: ServerProcess, clients: list[Client]) -> None:
    match_id, ann, bob = seat_two(server, clients, preset="beginner", move_time_limit_s=1)
    ann.wait_for(lambda c: c.view is not None, "a view")
    assert view_of(ann)["clock"]["limit_s"] == 1
    first = view_of(ann)["to_move"]
    ann.wait_for(
        lambda c: any(u["event"] and u["event"]["type"] == "TimeExpired" for u in c.updates),
        "the time-out",
    )
    expired = next(u for u in ann.updates if u["event"] and u["event"]["type"] == "TimeExpired")
    assert expired["event"]["seat"] == first


def test_claim_after_the_grace_period(server: ServerProcess, clients: list[Client]) -> None:
    match_id, ann, bob = seat_two(server, clients, preset="beginner")
    ann.wait_for(lambda c: c.view is not None, "a view")
    bob.close()
    ann.wait_for(
        lambda c: c.table is not None and not c.table["presence"][1]["connected"], "Bob away"
    )
    # The grace (1 s in these tests) has to pass; the server answers too_early until then.
    # The first table Ann sees with Bob away may predate his socket's disconnect (a seat taken
    # over HTTP counts as away from then until its socket connects), so the time a claim becomes
    # possible is read from the server's answers: never earlier than what Ann saw before.
    seen = table_of(ann)["presence"][1]["claimable_at_ms"]
    assert seen is not None
    claim = {"match_id": match_id, "seat_token": ann.token, "what": "resign"}
    for _ in range(100):
        ack = ann.sio.call("claim", claim, timeout=10)
        if ack["ok"]:
            break
        assert ack["code"] == "too_early" and ack["claimable_at_ms"] >= seen, ack
        seen = ack["claimable_at_ms"]
        time.sleep(0.1)
    assert ack["ok"], ack
    ann.wait_for(
        lambda c: any(u["event"] and u["event"]["type"] == "GameResigned" for u in c.updates),
        "Bob's resignation",
    )
    resigned = next(u for u in ann.updates if u["event"] and u["event"]["type"] == "GameResigned")
    assert resigned["event"]["seat"] == 1
    # A claimed win ends the match (issue 39): Bob abandons it, in one MatchWon saying it was
    # claimed; no game after game to the target.
    ann.wait_for(
        lambda c: any(u["event"] and u["event"]["type"] == "MatchWon" for u in c.updates),
        "the match's end",
    )
    kinds = [u["event"]["type"] for u in ann.updates if u["event"]]
    won = next(u["event"] for u in ann.updates if u["event"] and u["event"]["type"] == "MatchWon")
    assert won["winner"] == 0 and won["abandoned_by"] == 1 and won["claimed"] is True, won
    assert (
        kinds.count("GameResigned") == 1
        and "GameStarted" not in kinds[kinds.index("GameResigned") :]
    )


def test_rematch_offer_and_accept_over_http(server: ServerProcess, clients: list[Client]) -> None:
    match_id, ann, bob = seat_two(server, clients, preset="beginner", match="wins:1")
    early = server.post(f"/api/tables/{match_id}/rematch", {"seat_token": ann.token})
    assert early.status_code == 409 and early.json()["code"] == "not_playing"
    ann.wait_for(lambda c: c.view is not None, "a view")
    assert ann.send(match_id, {"do": "resign", "seat": 0})["ok"]

    offered = server.post(f"/api/tables/{match_id}/rematch", {"seat_token": ann.token})
    assert offered.status_code == 202, offered.text
    assert offered.json()["status"] == "offered"
    # Bob hears of it in a `table` message, and answers.
    bob.wait_for(lambda c: (c.table or {}).get("rematch_offer") is not None, "the offer")
    assert bob.table is not None and bob.table["rematch_offer"]["seat"] == 0
    body = {"seat_token": bob.token, "answer": "accept"}
    accepted = server.post(f"/api/tables/{match_id}/rematch", body)
    assert accepted.status_code == 201, accepted.text
    new_id = accepted.json()["match_id"]
    assert accepted.json()["table_url"] == f"/table/{new_id}"
    ann.wait_for(lambda c: (c.table or {}).get("rematch") == new_id, "the new table's id")
    new = server.get(f"/api/tables/{new_id}").json()
    assert new["rematch_of"] == match_id and new["status"] == "playing"
    assert [s["name"] for s in new["seats"]] == ["Ann", "Bob"]
    # Each player sits down at the new table with the token he had; nobody else can.
    assert ann.join(new_id, last_version=0)["seat"] == 0
    assert bob.join(new_id, last_version=0)["seat"] == 1
    assert server.post(f"/api/tables/{new_id}/join", {"name": "Eve"}).status_code == 409
    bad = server.post(f"/api/tables/{match_id}/rematch", {"seat_token": "x" * 20})
    assert bad.status_code == 403
    wrong = server.post(f"/api/tables/{match_id}/rematch", {**body, "answer": "maybe"})
    assert wrong.status_code == 400 and "answer" in wrong.json()["details"]


def test_pages_and_static_files(server: ServerProcess) -> None:
    pages = (("/", "index", None), ("/table/m-0123456789", "table", "m-0123456789"))
    for path, page, match_id in (*pages, ("/replay/m-1", "replay", "m-1")):
        response = server.get(path)
        assert response.status_code == 200, path
        assert "text/html" in response.headers["content-type"]
        expected = (REPO_ROOT / "web" / f"{page}.html").read_text()
        if match_id is not None:  # the table and replay pages carry their link preview tags
            base = response.text.split('property="og:url" content="', 1)[1].split(f"/{page}/")[0]
            assert base.startswith("http://127.0.0.1:"), base
            expected = with_preview(expected, preview_tags(base, page, match_id, None))
        assert response.text == expected, path
    script = server.get("/static/js/table.js")
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    assert server.get("/static/css/crapette.css").status_code == 200
    assert server.get("/static/__init__.py").status_code == 404
    assert server.get("/static/../server/app.py").status_code == 404
    assert server.get("/static/no-such-file.js").status_code == 404


def _items_in_nested_lists(page: str) -> list[str]:
    """The text of every <li> that sits in a list within a list (tags stripped)."""
    from html.parser import HTMLParser

    class Items(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.depth = 0
            self.deep: list[str] = []
            self.current: list[str] | None = None

        def handle_starttag(self, tag: str, attrs: object) -> None:
            if tag in ("ul", "ol"):
                self.depth += 1
            elif tag == "li" and self.depth >= 2:
                self.current = []
                self.deep.append("")

        def handle_endtag(self, tag: str) -> None:
            if tag in ("ul", "ol"):
                self.depth -= 1
            elif tag == "li" and self.current is not None and self.depth >= 2:
                self.deep[-1] = " ".join("".join(self.current).split())
                self.current = None

        def handle_data(self, data: str) -> None:
            if self.current is not None:
                self.current.append(data)

    parser = Items()
    parser.feed(page)
    return parser.deep


def test_the_rules_page_renders_the_players_rules(server: ServerProcess) -> None:
    response = server.get("/rules")
    assert response.status_code == 200 and "text/html" in response.headers["content-type"]
    page = response.text
    assert "<!-- the server puts" not in page  # the slot was filled
    # Every section of web/rules.md is there, with an id to link to; the tables are tables.
    source = (REPO_ROOT / "web" / "rules.md").read_text(encoding="utf-8")
    sections = [line[3:].strip() for line in source.splitlines() if line.startswith("## ")]
    assert len(sections) >= 8
    for title in sections:
        assert f">{html.escape(title, quote=False)}</h2>" in page, title
    assert 'id="presets"' in page and "<table>" in page and "<td>" in page
    # A nested list stays nested (Python-Markdown wants four spaces): every sub-item of the source
    # is an item of a list inside a list.
    nested = [
        re.sub(r"[*`]", "", line.strip()[2:])[:20]
        for line in source.splitlines()
        if line.startswith("    - ")
    ]
    deep = _items_in_nested_lists(page)
    assert nested and all(any(item.startswith(text) for item in deep) for text in nested), (
        nested,
        deep,
    )
    # The lobby links to it, and to its presets section.
    lobby = server.get("/").text
    assert 'href="/rules"' in lobby and 'href="/rules#presets"' in lobby


def test_claim_a_bot_for_the_absent_player_until_he_returns(
    server: ServerProcess, clients: list[Client]
) -> None:
    match_id, ann, bob = seat_two(server, clients, preset="beginner")
    ann.wait_for(lambda c: c.view is not None, "a view")
    bob_token = bob.token
    bob.close()
    claim = {"match_id": match_id, "seat_token": ann.token, "what": "bot"}
    for _ in range(100):
        ack = ann.sio.call("claim", claim, timeout=10)
        if ack["ok"]:
            break
        assert ack["code"] == "too_early", ack
        time.sleep(0.1)
    assert ack["ok"], ack
    ann.wait_for(lambda c: c.table is not None and c.table["seats"][1]["bot"] == "steady", "a bot")
    # The bot plays Bob's turns: Ann plays hers until the bot has moved at least once.
    for _ in range(300):
        view = ann.view or {}
        if any(u["event"] and u["event"].get("seat") == 1 for u in ann.updates[2:]):
            break
        if view.get("to_move") == 0:
            ack = ann.send(match_id, choose(view) or {})
            assert ack["ok"], ack
            ann.wait_version(ack["version"])
        else:
            version = ann.version
            ann.wait_for(lambda c, v=version: c.version > v, "the bot's move")  # type: ignore[misc]
    assert any(u["event"] and u["event"].get("seat") == 1 for u in ann.updates[2:])
    # Bob comes back with his token: the bot leaves his seat.
    back = Client(server, bob_token).connect()
    clients.append(back)
    back.join(match_id)
    ann.wait_for(lambda c: c.table is not None and c.table["seats"][1]["bot"] is None, "Bob back")
    assert table_of(ann)["seats"][1]["connected"]
