"""`GET /healthz`: can this process reach its event store and its message queue? A load balancer
(deploy/haproxy.cfg) sends players only to processes that answer 200 here."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Flask, Response, current_app, jsonify

log = logging.getLogger(__name__)

health_bp = Blueprint("health", __name__)

# The app's checks: name -> a function that returns quietly when the part answers, else raises.
CHECKS_KEY = "crapette_health_checks"


# Facts about the process shown with the checks (e.g. its node id among several).
FACTS_KEY = "crapette_health_facts"


def add_check(app: Flask, name: str, check: Callable[[], object]) -> None:
    app.extensions.setdefault(CHECKS_KEY, {})[name] = check


def add_fact(app: Flask, name: str, value: str) -> None:
    app.extensions.setdefault(FACTS_KEY, {})[name] = value


@health_bp.get("/healthz")
def healthz() -> tuple[Response, int]:
    """200 with every part "ok", or 503 naming the part that cannot be reached (and why)."""
    checks: dict[str, Callable[[], object]] = current_app.extensions.get(CHECKS_KEY, {})
    report: dict[str, Any] = {}
    healthy = True
    for name, check in checks.items():
        try:
            check()
        except Exception as exc:  # any failure of the part is the answer, not a crash
            # The details (host names, user names, paths) go to the log, not to whoever asks:
            # the route is public, and a load balancer needs only the part and the kind.
            log.warning("health check %s failed: %s", name, exc)
            report[name] = {"ok": False, "error": type(exc).__name__}
            healthy = False
        else:
            report[name] = {"ok": True}
    facts = current_app.extensions.get(FACTS_KEY, {})
    return jsonify({"ok": healthy, **facts, **report}), 200 if healthy else 503
