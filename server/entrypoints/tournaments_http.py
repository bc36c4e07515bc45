"""Tournaments over HTTP (docs/protocol.md § Tournaments) and their pages: `/tournaments` (the
list, and the form a director creates one with) and `/tournament/<id>` (standings, crosstable,
rounds; a player's next table; the director's orders).

The pages follow a tournament by polling `GET /api/tournaments/<id>` every 2 s with the ETag of
the last answer: an unchanged tournament is a `304` with no body, so a room of players' phones
costs the server a hash of a small JSON each, and nothing of its Socket.IO loop."""

from __future__ import annotations

import hashlib
import importlib.resources

from flask import Blueprint, Response, current_app, jsonify, request, send_from_directory

from server.entrypoints import schemas
from server.entrypoints import tournament_schemas as ts
from server.entrypoints.bodies import json_body
from server.errors import ServerError
from server.readmodels.tournament_views import summary_json, tournament_json
from server.service import GameService
from server.services.tournaments import Tournaments

tournaments_bp = Blueprint("tournaments", __name__)


@tournaments_bp.errorhandler(ServerError)
def _server_error(exc: ServerError) -> tuple[Response, int]:
    return exc.reply()


def _service() -> GameService:
    service: GameService = current_app.extensions["crapette"]
    return service


def _tournaments() -> Tournaments:
    return _service().tournaments


def _page(name: str) -> Response:
    return send_from_directory(str(importlib.resources.files("web")), name)


@tournaments_bp.get("/tournaments")
def tournaments_page() -> Response:
    return _page("tournaments.html")


@tournaments_bp.get("/tournament/<tournament_id>")
def tournament_page(tournament_id: str) -> Response:
    return _page("tournament.html")


@tournaments_bp.post("/api/tournaments")
def create_tournament() -> tuple[Response, int]:
    data = schemas.load(ts.CREATE, json_body(request))
    created = _tournaments().create(**data)
    url = f"/tournament/{created['tournament_id']}"
    return jsonify({**created, "url": url}), 201


@tournaments_bp.get("/api/tournaments")
def list_tournaments() -> Response:
    service = _tournaments()
    rows = [summary_json(service.repo.find(tid)) for tid in service.repo.ids()]
    rows.sort(key=lambda row: -int(row["created_at_ms"]))
    return jsonify({"tournaments": rows})


@tournaments_bp.get("/api/tournaments/<tournament_id>")
def get_tournament(tournament_id: str) -> Response:
    service = _tournaments()
    entry = service.repo.find(tournament_id)
    with entry.lock:
        service.repo.refresh(entry)
    body = jsonify(tournament_json(entry, service.matches))
    # Strong: the same bytes whenever the tag is the same (live scores included).
    body.set_etag(hashlib.sha256(body.get_data()).hexdigest()[:32])
    body.headers["Cache-Control"] = "no-cache"
    body.make_conditional(request)  # 304 and no body for a request naming this ETag
    return body


@tournaments_bp.post("/api/tournaments/<tournament_id>/claim")
def claim_name(tournament_id: str) -> Response:
    data = schemas.load(ts.NAME_CLAIM, json_body(request))
    return jsonify(_tournaments().claim(tournament_id, data["name"]))


@tournaments_bp.post("/api/tournaments/<tournament_id>/me")
def who_am_i(tournament_id: str) -> Response:
    data = schemas.load(ts.ME, json_body(request))
    return jsonify(_tournaments().me(tournament_id, data["player_token"]))


@tournaments_bp.post("/api/tournaments/<tournament_id>/director")
def direct(tournament_id: str) -> Response:
    data = schemas.load(ts.DIRECT, json_body(request))
    token, action = data.pop("director_token"), data.pop("action")
    return jsonify(_tournaments().direct(tournament_id, token, action, **data))
