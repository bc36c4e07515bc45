"""`GET /healthz`: 200 when the store answers, 503 naming it when it does not."""

from __future__ import annotations

from eventstore import open_store
from server.app import create_app
from server.config import ServerConfig


def test_healthz_reports_the_store() -> None:
    store = open_store("memory://")
    app, _socketio = create_app(ServerConfig(async_mode="threading"), store=store)
    client = app.test_client()
    healthy = client.get("/healthz")
    assert healthy.status_code == 200
    assert healthy.get_json() == {"ok": True, "store": {"ok": True}}
    store.close()
    down = client.get("/healthz")
    assert down.status_code == 503
    body = down.get_json()
    assert body["ok"] is False and body["store"]["ok"] is False
    # The kind of failure only: its details (hosts, users) go to the log, not to the public.
    assert body["store"]["error"] == "EventStoreError"
