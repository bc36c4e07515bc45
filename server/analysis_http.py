"""The analysis of a finished match over HTTP (docs/protocol.md § analysis), registered by the
app factory as `analysis_bp`:

- `POST /api/matches/<match_id>/analysis?depth=quick|normal|deep` — ask for it: `202` with its
  progress while a worker builds it, `200` with the analysis once built (at once when cached);
- `GET /api/matches/<match_id>/analysis?depth=…` — how far it has come (the page polls this);
  `404 not_analysed` when nobody asked for it yet.

Both refuse a match still in play with `409 match_running`, whatever was asked before."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, request

from server.analyses import AnalysisJob
from server.errors import NotAnalysedError, ServerError
from server.service import GameService

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
    return _answer(_service().analyses.request(match_id, _depth()))


@analysis_bp.get("/api/matches/<match_id>/analysis")
def progress(match_id: str) -> tuple[Response, int]:
    job = _service().analyses.status(match_id, _depth())
    if job is None:
        raise NotAnalysedError("Nobody asked for this analysis yet: POST here to start it.")
    return _answer(job)
