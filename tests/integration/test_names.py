"""Issue 38, against a real server process: display names follow RFC 8266's Nickname profile and
the domain's rules (docs/protocol.md § Names). Every name of the outside review is refused with
a 400 naming its rule, at a table, in a tournament and in an uploaded record; a name is stored
as the profile makes it (NFKC, one space); `Ann` + U+17B4 cannot join `Ann`."""

from __future__ import annotations

import json
from typing import Any

import pytest
import requests

from tests.conftest import REPO_ROOT
from tests.integration.harness import WAIT_S, ServerProcess
from tests.unit.domain.test_names import REVIEW_LIST

GOLDEN = REPO_ROOT / "tests" / "data" / "records" / "classic-calls-resign.json"
# Beyond the domain's own rules: what the Nickname profile refuses (old Hangul jamo).
PROFILE_ONLY = [("A\u1100", "disallowed")]


def _tournament(server: ServerProcess, names: list[str]) -> requests.Response:
    body = {
        "name": "Club night",
        "format": "swiss",
        "rounds": 1,
        "preset": "classic",
        "players": [{"name": n} for n in names],
    }
    return server.post("/api/tournaments", body)


def _record(first: str) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(GOLDEN.read_text())
    record["players"] = [first, "Bob"]
    record["match_id"] = "names-" + "-".join(f"{ord(c):x}" for c in first)[:60]
    return record


def _assert_refused(response: requests.Response, rule: str | None) -> None:
    """A 400 `invalid`, naming `rule` (a record's refusal names the field, not the rule)."""
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["code"] == "invalid" and body.get("rule") == rule, body
    assert len(json.dumps(body)) < 1000, body


@pytest.mark.parametrize(("name", "rule"), [*REVIEW_LIST, *PROFILE_ONLY])
def test_every_review_name_is_refused_everywhere(
    server: ServerProcess, name: str, rule: str
) -> None:
    _assert_refused(server.post("/api/tables", {"name": name}), rule)
    opened = server.open_table()
    _assert_refused(server.post(f"/api/tables/{opened['match_id']}/join", {"name": name}), rule)
    _assert_refused(_tournament(server, ["Bob", name]), rule)
    record = json.dumps(_record(name))
    upload = requests.post(f"{server.url}/api/records", data=record, timeout=WAIT_S)
    _assert_refused(upload, None)
    assert "players.0: A name " in upload.json()["message"], upload.text


def test_a_name_is_stored_as_the_profile_makes_it(server: ServerProcess) -> None:
    opened = server.post("/api/tables", {"name": "\U0001d400nn\u00a0\u00a0Lee"})
    assert opened.status_code == 201, opened.text
    table = server.get(f"/api/tables/{opened.json()['match_id']}").json()
    assert table["seats"][0]["name"] == "Ann Lee", table


def test_ann_with_an_ignorable_cannot_sit_beside_ann(server: ServerProcess) -> None:
    answer = _tournament(server, ["Ann", "Ann\u17b4"])
    _assert_refused(answer, "ignorable")
    # A look-alike the domain's skeleton knows: one name in one tournament.
    answer = _tournament(server, ["Ann", "\u0410nn"])
    assert answer.status_code == 422 and answer.json()["rule"] == "name taken", answer.text
