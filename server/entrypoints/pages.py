"""The lobby over HTTP (JSON) and the pages of the browser client."""

from __future__ import annotations

import functools
import html
import importlib.resources
import re
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version
from typing import TYPE_CHECKING

import markdown
from flask import Blueprint, Response, current_app, jsonify, request, send_from_directory

from domain.bots import BOT_DESCRIPTIONS, BOT_NAMES
from server.entrypoints import protocol, schemas
from server.entrypoints.bodies import json_body
from server.entrypoints.lan import lan_urls
from server.errors import InvalidInputError, ServerError
from server.service import GameService
from server.wire import languages
from server.wire.payloads import RematchAnswerJson, SeatTicket
from server.wire.ruleset_help import options_json

if TYPE_CHECKING:
    from server.readmodels.share.preview import Facts

bp = Blueprint("crapette", __name__)


def _service() -> GameService:
    service: GameService = current_app.extensions["crapette"]
    return service


def _body() -> object:
    return json_body(request)


def _base_url() -> str:
    return request.host_url.rstrip("/")


@bp.errorhandler(ServerError)
def _server_error(exc: ServerError) -> tuple[Response, int]:
    return exc.reply()


def _web_dir() -> str:
    return str(importlib.resources.files("web"))


def _page(name: str) -> Response:
    return send_from_directory(_web_dir(), name)


@bp.get("/")
def lobby_page() -> Response:
    return _page("index.html")


@bp.get("/table/<match_id>")
def table_page(match_id: str) -> Response:
    return _previewed("table", match_id)


@bp.get("/replay/<match_id>")
def replay_page(match_id: str) -> Response:
    return _previewed("replay", match_id)


def _previewed(page: str, match_id: str) -> Response:
    """The page with its link preview tags (server/readmodels/share/preview.py): a shared link shows
    the position it names (`?v=`, a replay's) as a picture, and who plays, the score and the
    preset in the page's language, from the lobby's projection (no match is loaded)."""
    from server.readmodels.share.preview import preview_tags, with_preview

    raw = request.args.get("v")
    version = (
        int(raw) if raw is not None and raw.isascii() and raw.isdigit() and len(raw) < 10 else None
    )
    html = (importlib.resources.files("web") / f"{page}.html").read_text(encoding="utf-8")
    lang = languages.choose(request)
    tags = preview_tags(_base_url(), page, match_id, version, lang, _facts(match_id))
    return Response(with_preview(html, tags), mimetype="text/html")


def _facts(match_id: str) -> Facts | None:
    """The table as the lobby knows it (names, totals, preset, status), None if unknown."""
    from server.readmodels.share.preview import Facts

    projection = _service().views.projection
    projection.catch_up()
    row = projection.row(match_id)
    if row is None:
        return None
    first, second = row.table.seats
    # The lobby folds an imported record's events before its table is opened, so it has no
    # score for one (server/readmodels/lobbyview.py): the preview then says none.
    totals = None if row.table.imported and row.version == 0 else row.totals
    return Facts((first.name, second.name), totals, row.table.preset, row.status)


RULES_SLOT = "<!-- the server puts web/rules.md here, rendered -->"
SWITCH_SLOT = "<!-- the server puts the language switch here -->"


@functools.cache
def rules_html(lang: str = languages.DEFAULT) -> str:
    """The players' rules in one language (`web/rules.md`, `web/rules.<lang>.md`) as a page:
    rendered once per process and language, headings with ids so that `/rules#presets` and the
    like link to a section (a translation keeps the English ids with `{#id}`)."""
    web = importlib.resources.files("web")
    name = "rules.md" if lang == languages.DEFAULT else f"rules.{lang}.md"
    text = web.joinpath(name).read_text(encoding="utf-8")
    extensions = ["tables", "toc", "attr_list"]
    body = markdown.markdown(text, extensions=extensions, output_format="html")
    words = languages.catalogue(lang)
    page = web.joinpath("rules.html").read_text(encoding="utf-8")
    page = re.sub(r"\{\{([\w.]+)\}\}", lambda m: lang if m[1] == "lang" else words[m[1]], page)
    return page.replace(SWITCH_SLOT, _language_switch(lang)).replace(RULES_SLOT, body)


def _language_switch(current: str) -> str:
    """Links to the page in every language, each named in its own language; web/js/i18n.js
    remembers a choice made here in the browser, the cookie lets the server follow it."""
    links = []
    for lang in languages.LANGUAGES:
        name = html.escape(languages.catalogue(lang)["language.name"])
        attrs = ' aria-current="true"' if lang == current else ""
        links.append(f'<a href="?lang={lang}" lang="{lang}" data-lang="{lang}"{attrs}>{name}</a>')
    label = html.escape(languages.catalogue(current)["language.switch"])
    nav = f'<nav class="languages" aria-label="{label}" data-testid="languages">'
    return f"    {nav}{' '.join(links)}</nav>"


@bp.get("/rules")
def rules_page() -> Response:
    lang = languages.choose(request)
    response = Response(rules_html(lang), mimetype="text/html")
    response.headers["Content-Language"] = lang
    response.vary.add("Accept-Language")
    response.vary.add("Cookie")
    if languages.supported(request.args.get("lang")):
        # A choice made with ?lang= is remembered in this browser, as the switch does.
        response.set_cookie(languages.COOKIE, lang, max_age=365 * 24 * 3600, samesite="Lax")
    return response


@bp.get("/static/<path:path>")
def static_file(path: str) -> Response:
    # Never the package's Python files: `__init__.py/` (a trailing slash) names one too.
    name = path.rstrip("/").rsplit("/", 1)[-1]
    if path.endswith("/") or name.endswith((".py", ".pyc")) or "__pycache__" in path:
        return Response(status=404)
    return send_from_directory(_web_dir(), path)


@bp.get("/api/presets")
def presets() -> Response:
    presets = _service().openings.presets()
    return jsonify({"presets": presets, "bots": _bots(), "options": options_json()})


def _bots() -> list[dict[str, str]]:
    return [{"name": name, "description": BOT_DESCRIPTIONS.get(name, "")} for name in BOT_NAMES]


@bp.post("/api/tables")
def open_table() -> tuple[Response, int]:
    data = schemas.load(schemas.CREATE_TABLE, _body())
    created = _service().openings.open_table(**data)
    return jsonify(_with_urls(created)), 201


def _with_urls(created: SeatTicket | RematchAnswerJson) -> dict[str, object]:
    """A new table's ticket, with the addresses of its page for the owner and for a guest."""
    match_id = created["match_id"]
    return {**created, "table_url": f"/table/{match_id}", "invite_url": _invite_url(match_id)}


def _invite_url(match_id: str) -> str:
    config = current_app.config["CRAPETTE"]
    urls = (
        lan_urls(config.host, config.port) if request.host.startswith(("127.", "localhost")) else []
    )
    base = urls[0].rstrip("/") if urls else _base_url()
    return f"{base}/table/{match_id}"


@bp.get("/api/tables")
def list_tables() -> Response:
    include_all = request.args.get("all") in ("1", "true", "yes")
    views = _service().views
    # How long a match in play may stay with nobody at it before it is `idle` (None: never).
    idle_s = None if views.idle_after_ms is None else views.idle_after_ms / 1000
    return jsonify({"tables": views.tables(include_all), "idle_after_s": idle_s})


@bp.get("/api/tables/<match_id>")
def get_table(match_id: str) -> Response:
    return jsonify(_service().views.table(match_id))


@bp.post("/api/tables/<match_id>/join")
def join_seat(match_id: str) -> Response:
    data = schemas.load(schemas.JOIN_SEAT, _body())
    ticket = _service().seats.join_seat(
        match_id, data["name"], data["seat"], bot=data["bot"], token=data["seat_token"]
    )
    return jsonify(ticket)


@bp.post("/api/tables/<match_id>/rematch")
def rematch(match_id: str) -> tuple[Response, int]:
    data = schemas.load(schemas.REMATCH, _body())
    answer = _service().rematches.rematch(match_id, data["seat_token"], data["answer"])
    if answer["status"] != "opened":
        return jsonify(answer), 202 if answer["status"] == "offered" else 200
    return jsonify(_with_urls(answer)), 201


@bp.get("/api/matches/<match_id>/view")
def match_view(match_id: str) -> Response:
    raw = request.args.get("version")
    # isdigit() alone lets "²" through (int() refuses it), and int() refuses over 4,300 digits.
    if raw is not None and not (raw.isascii() and raw.isdigit() and len(raw) <= 18):
        raise InvalidInputError(
            "version is a whole number.", details={"version": ["Not a number."]}
        )
    return jsonify(_service().reads.view_at(match_id, None if raw is None else int(raw)))


@bp.get("/api/matches/<match_id>/replay")
def match_replay(match_id: str) -> Response:
    """A finished match's replay never changes: cached by browsers for an hour, and answered
    with 304 to a request that names its ETag. A live one is revalidated on every request."""
    replay = _service().reads.replay(match_id)
    response = Response(replay.body, mimetype="application/json")
    response.set_etag(replay.etag)  # strong: the same bytes whenever the tag is the same
    response.headers["Cache-Control"] = "no-cache" if replay.live else "public, max-age=3600"
    response.make_conditional(request)  # 304 and no body for a request naming this ETag
    return response


@bp.get("/api/matches/<match_id>/options")
def match_options(match_id: str) -> Response:
    seat = request.args.get("seat")
    if seat not in ("0", "1"):
        raise InvalidInputError("seat is 0 or 1.", details={"seat": ["Not a seat."]})
    return Response(_service().reads.options(match_id, int(seat)).body, mimetype="application/json")


def package_version_or_zero() -> str:
    try:
        return package_version("crapette")
    except PackageNotFoundError:
        return "0.0.0"


@bp.get("/api/server-info")
def server_info() -> Response:
    config = current_app.config["CRAPETTE"]
    return jsonify(
        {
            "name": "crapette",
            "version": package_version_or_zero(),
            "urls": lan_urls(config.host, config.port),
            "announced_url": config.announced_url,
            "grace_s": config.grace_s,
            "async_mode": config.async_mode,
            # The Socket.IO protocol versions served (docs/protocol.md § Versions).
            "protocol": {"current": protocol.CURRENT, "supported": list(protocol.SUPPORTED)},
        }
    )
