"""Fair use: per-address rate limits on the requests that cost the server most (opening a table,
a replay, a view at a version, a record download or upload, a seat's options; generous ones on
player statistics and the health check, which read the store) and on seat joins (a script
could otherwise take every open table's free seat), with Flask-Limiter (memory storage, a moving
window per address and kind). A request over its limit gets
`429 {"code": "rate_limited", "message", "retry_after_s"}` and a `Retry-After` header, after a
pause of a second; nothing is done. Moves and the lobby list are not limited: they are cheap,
and a player must never be refused a move.

Limits are per process (the memory of one server). The address is the TCP peer's: behind a
reverse proxy every client would share the proxy's; run such a setup with the limits raised or
off (`--rate-limit all=off`)."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Mapping
from typing import Any

from flask import Flask, Response, jsonify
from flask_limiter import Limiter
from flask_limiter.errors import RateLimitExceeded
from flask_limiter.util import get_remote_address

# kind -> limit per address (Flask-Limiter's notation); what a person at a browser never reaches.
DEFAULT_LIMITS: dict[str, str] = {
    "create": "30/minute",  # POST /api/tables, /rematch, /api/tournaments: each opens tables
    "replay": "60/minute",  # GET /api/matches/<id>/replay (a page loads it once)
    "view": "300/minute",  # GET /api/matches/<id>/view
    "options": "60/minute",  # GET /api/matches/<id>/options
    "record": "30/minute",  # GET /api/matches/<id>/record*
    "upload": "20/minute",  # POST /api/records, /api/records/verify
    "share": "20/minute",  # GET /api/matches/<id>/replay.html, game.gif: a whole match drawn
    # A link preview asks for the picture of a shared page: one per share, cached once built.
    "picture": "120/minute",  # GET /api/matches/<id>/position.png
    # A page asks once and polls the progress twice a second while a worker builds it.
    "analysis": "240/minute",  # POST/GET /api/matches/<id>/analysis, …/analysis/try
    # Cheap, but each reads the store: generous, far above a balancer's checks (one per 2 s)
    # or a players' page, yet a loop cannot make them the server's whole work.
    "players": "120/minute",  # GET /api/players[/<name>], /api/ratings[/<name>]
    "health": "600/minute",  # GET /healthz
    # A person takes a seat once a game; a script taking every open table's free seat does not
    # get far (the check of a seat token is not limited: it is no join).
    "join": "20/minute",  # POST /api/tables/<id>/join, /api/tournaments/<id>/claim|me|director
}
KINDS = tuple(DEFAULT_LIMITS)

# endpoint -> kind; the endpoints of one kind share one budget.
ENDPOINTS: dict[str, str] = {
    "crapette.open_table": "create",
    "crapette.rematch": "create",
    "tournaments.create_tournament": "create",
    "crapette.match_replay": "replay",
    "crapette.match_view": "view",
    "crapette.match_options": "options",
    "records.download": "record",
    "records.download_text": "record",
    "records.download_json": "record",
    "records.upload": "upload",
    "records.verify": "upload",
    "share.replay_html": "share",
    "share.game_gif": "share",
    "share.position_png": "picture",
    "analysis.ask": "analysis",
    "analysis.progress": "analysis",
    "analysis.try_move": "analysis",
    "analysis.practice": "create",
    "players.all_players": "players",
    "players.one_player": "players",
    "players.leaderboard": "players",
    "players.rating_history": "players",
    "health.healthz": "health",
    "crapette.join_seat": "join",
    # A tournament's name claimed, a player's or the director's token checked (issue 38: one
    # address claimed all 32 names of a tournament, and their seat tokens, in 32 requests).
    "tournaments.claim_name": "join",
    "tournaments.who_am_i": "join",
    "tournaments.direct": "join",
}


class RateLimitError(ValueError):
    """A `--rate-limit` setting that is not KIND=LIMIT."""


def parse_limits(settings: tuple[str, ...]) -> dict[str, str | None]:
    """`("replay=10/minute", "create=off", "all=off")` -> overrides of DEFAULT_LIMITS (None: off).
    `all` sets every kind; later settings win."""
    from limits import parse

    result: dict[str, str | None] = {}
    for setting in settings:
        kind, sep, rate = setting.partition("=")
        kind, rate = kind.strip(), rate.strip()
        if not sep or (kind not in KINDS and kind != "all"):
            raise RateLimitError(
                f"{setting!r}: expected KIND=LIMIT, KIND one of {', '.join(KINDS)} or all"
            )
        if rate.lower() != "off":
            try:
                parse(rate)
            except ValueError:
                raise RateLimitError(f"{setting!r}: a limit is like 30/minute, or off") from None
        value = None if rate.lower() == "off" else rate
        for each in KINDS if kind == "all" else (kind,):
            result[each] = value
    return result


# A client over its budget waits this long for its 429, unless MAX_PAUSED already wait: a
# client looping on an expensive read then costs the server one idle greenthread per second
# instead of a request handled as fast as it can send them (answering 429 at once, three such
# loops kept a core busy with refusals and moves at other tables waited behind them).
REFUSAL_PAUSE_S = 1.0
MAX_PAUSED = 64


def install(
    app: Flask,
    overrides: Mapping[str, str | None],
    pause_s: float = REFUSAL_PAUSE_S,
    storage_uri: str = "memory://",
) -> Limiter | None:
    """Limit this app's expensive endpoints (after every blueprint is registered). None when
    every limit is off. `storage_uri`: where the counts live; several processes serving as one
    share them in their Redis, so that a client's budget does not grow with their number."""
    limits = {**DEFAULT_LIMITS, **overrides}
    if not any(limits.values()):
        return None
    limiter = Limiter(
        get_remote_address,
        app=app,
        storage_uri=storage_uri,
        strategy="moving-window",
        headers_enabled=True,
    )
    for endpoint, kind in ENDPOINTS.items():
        rate = limits.get(kind)
        view = app.view_functions.get(endpoint)
        if rate and view is not None:
            limited: Any = limiter.shared_limit(rate, scope=kind)(view)  # the same view, limited
            app.view_functions[endpoint] = limited

    paused = [0]
    paused_lock = threading.Lock()

    @app.errorhandler(RateLimitExceeded)
    def too_many(exc: RateLimitExceeded) -> tuple[Response, int]:
        with paused_lock:
            pause = pause_s if paused[0] < MAX_PAUSED else 0.0
            paused[0] += 1
        try:
            time.sleep(pause)  # green under eventlet: only this request waits
        finally:
            with paused_lock:
                paused[0] -= 1
        current = limiter.current_limit
        reset_at = current.reset_at if current is not None else time.time() + 1
        retry = max(1, math.ceil(reset_at - time.time()))
        body = {
            "code": "rate_limited",
            "message": (
                f"Too many requests of this kind from your address (at most {exc.description}); "
                f"try again in {retry} s."
            ),
            "retry_after_s": retry,
        }
        return jsonify(body), 429

    return limiter
