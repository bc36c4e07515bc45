"""Learning from a finished match over HTTP (docs/protocol.md § analysis, § practice),
registered by the app factory as `analysis_bp`:

- `POST /api/matches/<match_id>/analysis?depth=quick|normal|deep` — ask for its analysis: `202`
  with its progress while a worker builds it, `200` with the analysis once built (at once when
  cached);
- `GET /api/matches/<match_id>/analysis?depth=…` — how far it has come (the page polls this);
  `404 not_analysed` when nobody asked for it yet;
- `GET /api/matches/<match_id>/analysis/status?depth=…` — the same status, `200` in every state
  (`none` when nobody asked yet, `unavailable` when this server cannot analyse): what the page
  asks first, so that a match not analysed is a state and not an error in its console;
- `POST /api/matches/<match_id>/analysis/try` — the learning mode: is this move, at a decision
  the analysis judged, as good as the best one found there?
- `POST /api/matches/<match_id>/practice` — play on from a position, against a bot: a new
  practice table (`201` with its seat ticket).

Each refuses a match still in play with `409 match_running`, whatever was asked before."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, request

from server.entrypoints import schemas
from server.entrypoints.bodies import json_body
from server.errors import AnalysisUnavailableError, NotAnalysedError, ServerError
from server.service import GameService
from server.services.analyses import AnalysisJob

analysis_bp = Blueprint("analysis", __name__)


@analysis_bp.errorhandler(ServerError)
def _server_error(exc: ServerError) -> tuple[Response, int]:
    return exc.reply()


def _service() -> GameService:
    service: GameService = current_app.extensions["crapette"]
    return service


def _depth() -> str:
    return request.args.get("depth") or "normal"


def _answer(job: AnalysisJob) -> tuple[Response, int]:
    status = {"running": 202, "done": 200}.get(job.state, job.error_status)
    response = Response(job.status_json(), mimetype="application/json")
    response.headers["Cache-Control"] = "no-store"
    return response, status


@analysis_bp.post("/api/matches/<match_id>/analysis")
def ask(match_id: str) -> tuple[Response, int]:
    depth = _depth()
    if request.content_length or request.headers.get("Transfer-Encoding"):
        # A body, if any, is `{"depth": ...}` (read with the limits of every body).
        depth = schemas.load(schemas.ANALYSE, json_body(request)).get("depth") or depth
    return _answer(_service().analyses.request(match_id, depth))


@analysis_bp.get("/api/matches/<match_id>/analysis")
def progress(match_id: str) -> tuple[Response, int]:
    analyses = _service().analyses
    job = analyses.status(match_id, _depth())
    if job is None:
        analyses.check_available(analyses.analyser)  # no button for what cannot be done
        raise NotAnalysedError("Nobody asked for this analysis yet: POST here to start it.")
    return _answer(job)


@analysis_bp.get("/api/matches/<match_id>/analysis/status")
def state(match_id: str) -> Response:
    analyses = _service().analyses
    depth = _depth()
    job = analyses.status(match_id, depth)  # 404 no such match, 409 match_running: errors still
    if job is not None:
        response = Response(job.status_json(), mimetype="application/json")
    else:
        try:
            analyses.check_available(analyses.analyser)
            said = "none"
        except AnalysisUnavailableError:
            said = "unavailable"
        version = analyses.finished_version(match_id)
        body = {"match_id": match_id, "version": version, "depth": depth, "status": said}
        response = jsonify(body)
    response.headers["Cache-Control"] = "no-store"
    return response


@analysis_bp.post("/api/matches/<match_id>/analysis/try")
def try_move(match_id: str) -> Response:
    data = schemas.load(schemas.TRY, json_body(request))
    verdict = _service().analyses.try_move(match_id, data["version"], data["action"], _depth())
    return jsonify(verdict)


@analysis_bp.post("/api/matches/<match_id>/practice")
def practice(match_id: str) -> tuple[Response, int]:
    data = schemas.load(schemas.PRACTICE, json_body(request))
    version = data.pop("version")
    ticket = _service().practice.play_on(match_id, version, **data)
    new_id = ticket["match_id"]
    return jsonify({**ticket, "table_url": f"/table/{new_id}"}), 201
