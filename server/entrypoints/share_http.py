"""HTTP endpoints of the shared artefacts (registered by the app factory as `share_bp`;
docs/protocol.md § Shared replays and pictures, docs/records.md § HTML):

- `GET /api/matches/<id>/replay.html` — the replay as one HTML file that opens offline;
- `GET /api/matches/<id>/game.gif?game=N[&speed=S]` — game N (from 0) of the match, animated:
  a game that is over only (one in play: 409 `game_in_play`);
- `GET /api/matches/<id>/position.png?version=V` — the position after V events (default: the
  last), as the replay page shows it to anyone: every card of a game that is over, the
  spectator's view of a running one.

The pictures' words (names, piles, the caption) are in the language of `?lang=` (one of the
client's, server/wire/languages.py; English without it).

Each is built by a read worker, off the playing loop, once per version of the match and
parameters (server/services/reads.py `shared`), sent with a strong ETag, and rate-limited
(server/entrypoints/fairuse.py, kinds `share` and `picture`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from flask import Blueprint, Response, current_app, request

from server.errors import InvalidInputError
from server.readmodels.replays import Built
from server.readmodels.share.animate import SPEEDS
from server.readmodels.share.html import inline_policy
from server.wire import languages

if TYPE_CHECKING:
    from server.service import GameService

share_bp = Blueprint("share", __name__)


def _service() -> GameService:
    service: GameService = current_app.extensions["crapette"]
    return service


def _number(name: str, default: int | None, limit: int = 10**9) -> int | None:
    raw = request.args.get(name)
    if raw is None:
        return default
    # isdigit() alone lets "²" through, and int() refuses over 4,300 digits.
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 9) or int(raw) > limit:
        raise InvalidInputError(f"{name} is a whole number.", details={name: ["Not a number."]})
    return int(raw)


def _lang() -> str:
    """The pictures' language: `?lang=` (one of LANGUAGES), English without one."""
    raw = request.args.get("lang")
    if raw is None:
        return languages.DEFAULT
    lang = languages.supported(raw)
    if lang is None or len(raw) > 10:
        said = ", ".join(languages.LANGUAGES)
        raise InvalidInputError(f"lang is one of {said}.", details={"lang": ["Not a language."]})
    return lang


def _send(built: Built, mimetype: str, filename: str | None = None) -> Response:
    response = Response(built.body, mimetype=mimetype)
    response.set_etag(built.etag)
    response.headers["Cache-Control"] = "no-cache" if built.live else "public, max-age=3600"
    if filename is not None:
        response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    response.make_conditional(request)
    return response


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)[:80]


@share_bp.get("/api/matches/<match_id>/replay.html")
def replay_html(match_id: str) -> Response:
    source = request.host_url.rstrip("/")
    service = _service()
    # The analysis of the match when one is built (docs/records.md § HTML): read by the worker
    # from the analyses' cache directory, or given here when the server keeps none. The file
    # is built again once an analysis is done (its depth names the variant).
    analyses = service.analyses
    job = analyses.built(match_id)
    params: dict[str, object] = {"source_url": source, "cache_dir": analyses.cache_dir}
    if job is not None and job.body is not None and analyses.cache_dir is None:
        params["analysis"] = job.body.decode()
    variant = f"{source}|{job.version}-{job.depth}" if job is not None else source
    built = service.reads.shared("html", match_id, variant, **params)
    name = f"crapette-{_safe(match_id)}.html" if request.args.get("inline") is None else None
    response = _send(built, "text/html", name)
    # Its inline scripts and styles by their hashes, not the pages' policy
    # (server/entrypoints/security.py), which would stop them when it is opened from here
    # (`?inline=1`).
    response.headers["Content-Security-Policy"] = _policy(built.etag, built.body)
    return response


_POLICIES: dict[str, str] = {}


def _policy(etag: str, body: bytes) -> str:
    """The file's policy, computed once per version of the file (a few kept)."""
    policy = _POLICIES.get(etag)
    if policy is None:
        if len(_POLICIES) >= 32:
            _POLICIES.clear()
        policy = _POLICIES[etag] = inline_policy(body.decode("utf-8"))
    return policy


@share_bp.get("/api/matches/<match_id>/game.gif")
def game_gif(match_id: str) -> Response:
    game = _number("game", 0)
    raw = request.args.get("speed", "1")
    try:
        speed = float(raw)
    except ValueError:
        speed = 0.0
    if speed not in SPEEDS:
        said = ", ".join(f"{s:g}" for s in SPEEDS)
        raise InvalidInputError(f"speed is one of {said}.", details={"speed": ["Not a speed."]})
    lang = _lang()
    built = _service().reads.shared(
        "gif", match_id, f"{game}@{speed:g}@{lang}", game=game, speed=speed, lang=lang
    )
    assert game is not None
    name = f"crapette-{_safe(match_id)}-game{game + 1}.gif"
    return _send(built, "image/gif", name if request.args.get("download") else None)


@share_bp.get("/api/matches/<match_id>/position.png")
def position_png(match_id: str) -> Response:
    at = _number("version", None)
    lang = _lang()
    built = _service().reads.shared("png", match_id, f"{at}@{lang}", at=at, lang=lang)
    return _send(built, "image/png")
