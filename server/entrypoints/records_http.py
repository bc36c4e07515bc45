"""HTTP endpoints for match records (registered by the app factory as `records_bp`).

- `GET /api/matches/<match_id>/record?format=json|text` (also `record.json`, `record.txt`) —
  download the record (a live match with public information only);
- `POST /api/records?match_id=ID` — upload a record (JSON body, text body, or a multipart form
  with a `file` field): it is verified and stored as a match; `201` with its id and replay URL;
- `POST /api/records/verify` — the same check without storing anything;
- `GET /api/records/progress/<token>` — how far the upload sent with `?progress=<token>` has
  come (`queued`, `checking` with the actions checked, `storing`, `done`, `failed`): what the
  lobby's import dialog shows while a long record is checked.

Both run in a worker process (server/services/imports.py), off the event loop, one at a time per
address (a second is `429 rate_limited`); a record over the cost caps (server/readmodels/costs.py)
is `422 too_costly` before it is verified, a body over 20 MB `413 too_large` before it is read.

Errors follow docs/protocol.md: `{"code", "message", ...}` with 400 `invalid` (not a record),
404 `not_found`, 409 `conflict` (the id is taken: `same_record` says whether by this very match,
`existing_replay_url` links to it, `free_id` is an id to import under instead), 422 `mismatch`
(the engine disagrees; the body names the game and action).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from flask import Blueprint, Response, current_app, jsonify, request

from server.entrypoints.bodies import read_body
from server.errors import (
    InvalidInputError,
    NotFoundError,
    ReadRefusedError,
    TooLargeError,
    bounded,
)
from server.services.imports import TOKEN

if TYPE_CHECKING:
    from server.service import GameService

records_bp = Blueprint("records", __name__)

MAX_UPLOAD_BYTES = 20 * 1024 * 1024


@records_bp.get("/api/matches/<match_id>/record.txt")
def download_text(match_id: str) -> Response | tuple[Response, int]:
    return _download(match_id, "text")


@records_bp.get("/api/matches/<match_id>/record.json")
def download_json(match_id: str) -> Response | tuple[Response, int]:
    return _download(match_id, "json")


@records_bp.get("/api/matches/<match_id>/record")
def download(match_id: str) -> Response | tuple[Response, int]:
    return _download(match_id, request.args.get("format", "json"))


def _download(match_id: str, fmt: str) -> Response | tuple[Response, int]:
    """Built once per version of the match, off the event loop (server.services.reads), and sent
    with a strong ETag: a request naming it gets 304 and no body."""
    if fmt not in ("json", "text"):
        return jsonify({"code": "invalid", "message": "format is json or text"}), 400
    service: GameService = current_app.extensions["crapette"]
    record = service.reads.record(match_id, fmt)
    if fmt == "json":
        mimetype, suffix = "application/json", "json"
    else:
        mimetype, suffix = "text/plain; charset=utf-8", "txt"
    response = Response(record.body, mimetype=mimetype)
    response.set_etag(record.etag)
    response.headers["Cache-Control"] = "no-cache" if record.live else "public, max-age=3600"
    if request.args.get("inline") is None:
        response.headers["Content-Disposition"] = (
            f'attachment; filename="crapette-{_safe(match_id)}.{suffix}"'
        )
    response.make_conditional(request)
    return response


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)[:80]


def _uploaded_bytes() -> bytes:
    """The record's bytes from a multipart `file`, a JSON body, or a plain text body (read here,
    greenly; parsed and checked in a worker)."""
    too_large = f"An upload is at most {MAX_UPLOAD_BYTES // (1024 * 1024)} MB."
    if request.content_length is not None and request.content_length > MAX_UPLOAD_BYTES:
        raise TooLargeError(too_large)
    if request.mimetype.startswith("multipart/"):
        upload = request.files.get("file")
        raw = upload.read(MAX_UPLOAD_BYTES + 1) if upload is not None else b""
    else:  # a JSON or text body, chunked or not
        raw = read_body(request, MAX_UPLOAD_BYTES, too_large)
    if len(raw) > MAX_UPLOAD_BYTES:
        raise TooLargeError(too_large)
    return raw


def _token() -> str | None:
    """The upload's progress token (`?progress=`), checked: 16-64 letters, digits, _ or -."""
    token = request.args.get("progress")
    if token is None:
        return None
    if not TOKEN.fullmatch(token):
        message = "progress is a token of 16 to 64 letters, digits, _ or -."
        raise InvalidInputError(message, details={"progress": [message]})
    return token


def _refused(exc: ReadRefusedError) -> tuple[Response, int]:
    # A record's values quoted in a message or a mismatch, cut (server/errors.py `bounded`).
    return jsonify(bounded(exc.to_json())), exc.http_status


@records_bp.post("/api/records")
def upload() -> tuple[Response, int]:
    """Parsed, checked against the cost caps, verified and stored by a worker
    (server/services/imports.py): the loop only reads the body and waits."""
    match_id = request.args.get("match_id") or request.form.get("match_id") or None
    service: GameService = current_app.extensions["crapette"]
    try:
        body = service.imports.upload(_uploaded_bytes(), match_id, _token())
    except ReadRefusedError as exc:
        return _refused(exc)
    return jsonify(body), 201


@records_bp.post("/api/records/verify")
def verify() -> tuple[Response, int]:
    service: GameService = current_app.extensions["crapette"]
    try:
        body = service.imports.verify(_uploaded_bytes(), _token())
    except ReadRefusedError as exc:
        return _refused(exc)
    return jsonify(body), 200


@records_bp.get("/api/records/progress/<token>")
def progress(token: str) -> Response:
    service: GameService = current_app.extensions["crapette"]
    told = service.imports.progress(token) if TOKEN.fullmatch(token) else None
    if told is None:
        raise NotFoundError("No upload under way, nor just over, has this progress token.")
    response = jsonify(told)
    response.headers["Cache-Control"] = "no-store"
    return response
