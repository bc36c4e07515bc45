"""Security headers on every answer and the Host check (server/entrypoints/security.py), at the WSGI
level: every registered route, the error pages, the static files and Socket.IO's own answers."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import pytest
from flask import Flask

from server.app import create_app
from server.config import ServerConfig
from server.entrypoints.security import CSP, HostPolicy, host_name
from tests.http_kit import json_of

EVIL = "evil.example:8000"


def _make(tmp_path: Path, **config: Any) -> Flask:
    url = f"sqlite:///{tmp_path}/security.sqlite3"
    app, _socketio = create_app(ServerConfig(async_mode="threading", store_url=url, **config))
    return app


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    app = _make(tmp_path)

    @app.get("/test-only/boom")
    def boom() -> NoReturn:
        raise RuntimeError("a bug")

    yield app
    app.extensions["crapette_store"].close()


def _assert_headers(response: Any, what: object, policy: str = CSP) -> None:
    headers = response.headers
    assert headers.get("Content-Security-Policy") == policy, (what, response.status_code)
    assert headers.get("X-Content-Type-Options") == "nosniff", what
    assert headers.get("Referrer-Policy") == "same-origin", what


def _fill(rule: str, match_id: str) -> str:
    path = re.sub(r"<(?:[a-z]+:)?match_id>", match_id, rule)
    path = re.sub(r"<(?:[a-z]+:)?path>", "js/net.js", path)
    return re.sub(r"<(?:[a-z]+:)?\w+>", "x", path)


def test_every_route_carries_the_security_headers(app: Flask) -> None:
    client = app.test_client()
    match_id = json_of(client.post("/api/tables", json={"name": "Ann"}))["match_id"]
    seen = 0
    for rule in app.url_map.iter_rules():
        path = _fill(rule.rule, match_id)
        for method in sorted((rule.methods or set()) - {"OPTIONS"}):
            response = client.open(path, method=method, json={})
            if rule.endpoint == "share.replay_html" and response.status_code < 400:
                # The self-contained file: its own inline scripts by hash, framed by no other site.
                policy = response.headers["Content-Security-Policy"]
                assert "frame-ancestors 'self'" in policy and "'unsafe-inline'" not in policy
                assert "script-src 'sha256-" in policy and "default-src 'none'" in policy
                policy_ok = policy
            else:
                policy_ok = CSP
            _assert_headers(response, (method, path), policy_ok)
            response.close()
            seen += 1
    assert seen > 60  # pages, API, tournaments, players, records, share, analysis, health
    # The pages, the static files, the errors, Socket.IO's polling answers.
    for path, status in (
        ("/", 200),
        (f"/table/{match_id}", 200),
        (f"/replay/{match_id}", 200),
        ("/players", 200),
        ("/tournaments", 200),
        ("/rules", 200),
        ("/static/css/crapette.css", 200),
        ("/static/js/net.js", 200),
        ("/nowhere", 404),
        ("/static/nothing.js", 404),
        ("/test-only/boom", 500),
        ("/socket.io/?EIO=4&transport=polling", 200),
        ("/socket.io/?EIO=1&transport=polling", 400),
    ):
        response = client.get(path)
        assert response.status_code == status, (path, response.status_code)
        _assert_headers(response, path)
        response.close()
    wrong_method = client.delete("/api/tables")
    assert wrong_method.status_code == 405
    _assert_headers(wrong_method, "405")


def test_the_policy_is_strict() -> None:
    directives = dict(d.split(" ", 1) for d in CSP.split("; "))
    assert directives["script-src"] == "'self'"
    assert directives["style-src"] == "'self'"  # no style= attribute in any page
    assert directives["frame-ancestors"] == "'self'"
    assert directives["object-src"] == "'none'" and directives["base-uri"] == "'none'"
    assert "unsafe" not in CSP and "*" not in CSP


def test_no_page_needs_inline_script_or_style() -> None:
    """What the policy refuses is in no page, nor in what the modules write into one."""
    web = Path(__file__).resolve().parents[4] / "web"
    for page in web.glob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert " style=" not in text and "<style" not in text, page.name
        for script in re.findall(r"<script([^>]*)>", text):
            assert "src=" in script, (page.name, script)
        assert not re.search(r"\son[a-z]+=", text), page.name
    for module in (web / "js").glob("*.js"):
        text = module.read_text(encoding="utf-8")
        # A style attribute in markup, set by name, or passed to a page's el(tag, attrs) helper.
        found = re.search(r"style=|setAttribute\(\s*[\"']style|[{,]\s*[\"']?style[\"']?\s*:", text)
        assert not found, (module.name, found)


def test_host_names() -> None:
    assert host_name("[::1]:8000") == "::1"
    assert host_name("Crapette.LOCAL.:80") == "crapette.local"
    assert host_name("192.168.1.20:8000") == "192.168.1.20"
    assert host_name("::1") == "::1"
    policy = HostPolicy(("play.example.org",), "http://club.local:8000/", own_names=("box",))
    host: str | None
    for host in (
        "localhost:8000",
        "127.0.0.1:8000",
        "[::1]:8000",
        "192.168.1.20:8000",
        "[fe80::1]",
        "box:8000",
        "club.local:8000",
        "PLAY.example.org",
    ):
        assert policy.accepts(host), host
    refused_hosts: tuple[str | None, ...] = (
        EVIL,
        "play.example.org.evil.example",
        "localhost.evil.example",
        "",
        None,
    )
    for host in refused_hosts:
        assert not policy.accepts(host), host
    assert HostPolicy(("*",)).accepts(EVIL)


def _status(client: Any, path: str, headers: dict[str, str]) -> int:
    response = client.get(path, headers=headers)
    response.close()  # a page is sent as a file
    status: int = response.status_code
    return status


def _tables(app: Flask) -> list[Any]:
    tables: list[Any] = json_of(app.test_client().get("/api/tables?all=1"))["tables"]
    return tables


def test_a_rebound_host_opens_no_table_and_is_never_echoed(app: Flask) -> None:
    client = app.test_client()
    evil = {"Host": EVIL, "Origin": f"http://{EVIL}"}
    refused = client.post("/api/tables", json={"name": "Ann"}, headers=evil)
    assert refused.status_code == 421
    assert json_of(refused)["code"] == "misdirected_host"
    assert "--allowed-host" in json_of(refused)["message"]
    _assert_headers(refused, "421")
    assert _tables(app) == []
    for path in ("/", "/api/tables", "/socket.io/?EIO=4&transport=polling"):
        assert _status(client, path, {"Host": EVIL}) == 421, path
    # The server's own names and addresses are answered, and echoed in the invite.
    for host in ("localhost:8000", "127.0.0.1:8000", "192.168.1.20:8000", "[::1]:8000"):
        own = {"Host": host, "Origin": f"http://{host}"}
        opened = client.post("/api/tables", json={"name": "Ann"}, headers=own)
        assert opened.status_code == 201, (host, opened.json)
        assert "evil" not in json_of(opened)["invite_url"]
    assert len(_tables(app)) == 4


def test_allowed_hosts_and_the_announced_name(tmp_path: Path) -> None:
    app = _make(
        tmp_path,
        allowed_hosts=("play.example.org",),
        announced_url="http://club.local:8000/",
    )
    client = app.test_client()
    for host in ("play.example.org", "club.local:8000"):
        headers = {"Host": host, "Origin": f"http://{host}"}
        opened = client.post("/api/tables", json={"name": "Ann"}, headers=headers)
        assert opened.status_code == 201, opened.json
        assert json_of(opened)["invite_url"].startswith(f"http://{host}/table/")
    assert _status(client, "/", {"Host": EVIL}) == 421
    app.extensions["crapette_store"].close()


def test_behind_a_proxy_the_forwarded_host_is_checked(tmp_path: Path) -> None:
    app = _make(tmp_path, behind_proxy=True, allowed_hosts=("play.example.org",))
    client = app.test_client()
    through = {"Host": "127.0.0.1:8001", "X-Forwarded-For": "10.0.0.7"}
    assert _status(client, "/", {**through, "X-Forwarded-Host": EVIL}) == 421
    public = {**through, "X-Forwarded-Host": "play.example.org", "X-Forwarded-Proto": "https"}
    headers = {**public, "Origin": "https://play.example.org"}
    opened = client.post("/api/tables", json={"name": "Ann"}, headers=headers)
    assert opened.status_code == 201, opened.json
    assert json_of(opened)["invite_url"].startswith("https://play.example.org/table/")
    # HAProxy passes the client's Host on as is (deploy/haproxy.cfg): the cluster tests' case.
    assert _status(client, "/", through) == 200
    app.extensions["crapette_store"].close()


def test_the_check_can_be_turned_off(tmp_path: Path) -> None:
    app = _make(tmp_path, allowed_hosts=("*",))
    assert _status(app.test_client(), "/", {"Host": EVIL}) == 200
    app.extensions["crapette_store"].close()
