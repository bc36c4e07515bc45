"""The shared artefacts built from a match in the store: what a read worker runs for the kinds
`html`, `gif` and `png` (server/adapters/workers.py), and what `crapette export --format html`
writes. Each folds the match as the replay does and draws from its frames' views only."""

from __future__ import annotations

import json
from typing import Any

from eventstore import EventStore
from server.adapters.matches import MatchEntry, MatchRepository
from server.errors import GameInPlayError, InvalidInputError, NotFoundError
from server.readmodels.analysis_build import (
    DEPTHS,
    Progress,
    build_analysis,
    for_match,
    read_cached,
    record_hash,
)
from server.readmodels.costs import check_html, check_html_bytes
from server.readmodels.knowledge import seat_options
from server.readmodels.replays import frame_of, replay_of
from server.readmodels.share.animate import game_gif, position_png
from server.readmodels.share.html import replay_html
from server.readmodels.updates import game_over
from server.runtime import patches
from server.wire.languages import DEFAULT, supported


def held(store: EventStore, match_id: str, version: int | None = None) -> MatchEntry:
    """The match loaded from the store as the server loads it, holding at least `version`
    events (None: as many as it has)."""
    entry = MatchRepository(store, lambda _m, _a: None).get(match_id)
    if entry is None:
        raise NotFoundError(f"There is no table {match_id}.")
    if version is not None and entry.version < version:
        raise NotFoundError(f"The match has only {entry.version} events, not {version}.")
    return entry


def html_file(
    store: EventStore,
    match_id: str,
    version: int | None,
    source_url: str | None,
    *,
    cache_dir: str | None = None,
    analyse: str | None = None,
    progress: Progress | None = None,
) -> str:
    """The replay file of the match's first `version` events (None: all of them), with the
    analysis of the match kept in `cache_dir` if there is one; `analyse`: a depth, to build
    the analysis at when none is kept (kept there then), None to embed only one already built."""
    entry = held(store, match_id, version)
    upto = entry.version if version is None else version
    return _html(store, entry, upto, source_url, cache_dir, analyse, progress)


# The analysis embedded when several were built: the deepest.
_DEPTHS_KEPT = tuple(reversed(DEPTHS))


def kept_analysis(
    record: dict[str, Any], cache_dir: str | None, match_id: str, version: int
) -> dict[str, Any] | None:
    """The analysis of the record built already and kept in `cache_dir` (by its content hash,
    server/readmodels/analysis_build.py; the deepest of those kept), None if none is: never built
    here."""
    if cache_dir is None or record.get("live"):
        return None
    digest = record_hash(record)
    for depth in _DEPTHS_KEPT:
        body = read_cached(cache_dir, digest, depth, 0)
        if body is not None:
            try:
                analysis: dict[str, Any] = json.loads(for_match(body, match_id, version))
            except ValueError:  # a damaged file: as if none were kept (it is built again)
                continue
            return analysis
    return None


def _html(
    store: EventStore,
    entry: MatchEntry,
    upto: int,
    source_url: str | None,
    cache_dir: str | None = None,
    analyse: str | None = None,
    progress: Progress | None = None,
    built: bytes | None = None,
) -> str:
    from records.export import export_match

    match_id = entry.match_id
    replay = patches.loads(replay_of(entry, upto).body)
    # What each seat could do, at the positions of the finished games only (seat_options).
    now = MatchRepository.state_at(entry, upto)
    options: dict[str, Any] = {
        str(seat): seat_options(MatchRepository.states_between(entry, 0, upto), now, seat)
        for seat in (0, 1)
    }
    record = export_match(store, match_id, upto=upto)
    analysis = json.loads(built) if built is not None else None
    analysis = analysis or kept_analysis(record, cache_dir, match_id, upto)
    if analysis is None and analyse is not None:
        # Asked for (`crapette export --analysis`): built now, and kept for the server.
        job = {"match_id": match_id, "version": upto, "depth": analyse, "cache_dir": cache_dir}
        analysis = json.loads(build_analysis(store, job, progress or (lambda _d, _t: None)))
    return replay_html(replay, options, record, source_url, analysis=analysis)


def _live(entry: MatchEntry, upto: int) -> bool:
    now = MatchRepository.state_at(entry, upto)
    return now is not None and not now.finished


# -- the read workers' builds: (body, whether the match was still in play) ---------------------


def build_html(store: EventStore, job: dict[str, Any]) -> tuple[bytes, bool]:
    """`cache_dir`: where the server keeps its analyses; `analysis`: one it holds in memory
    only (a server with no cache directory), as text. Within the cost caps
    (server/readmodels/costs.py): the server checks the events before it asks, and the size of
    what was built is checked here."""
    check_html(job["version"])
    entry = held(store, job["match_id"], job["version"])
    built = job.get("analysis")
    body = _html(
        store,
        entry,
        job["version"],
        job.get("source_url"),
        job.get("cache_dir"),
        built=None if built is None else str(built).encode(),
    ).encode()
    check_html_bytes(len(body))
    return body, _live(entry, job["version"])


def _players(entry: MatchEntry) -> list[str]:
    # A free seat stays unnamed: the picture says "player 2" in its language (words.py).
    return [seat.name or "" for seat in entry.table.seats]


def _show_all(entry: MatchEntry, upto: int) -> bool:
    """Whether the replay shows every card (server/readmodels/replays.py `replay_of`): a finished
    match, or an imported one (its record held every card). Else only the games that are over."""
    return not _live(entry, upto) or entry.table.imported


def game_frames(entry: MatchEntry, upto: int, game: int) -> list[dict[str, Any]]:
    """The replay frames of game `game` (from 0), each with its whole view, as the replay page
    shows them: refused while that game runs (its hidden cards stay hidden)."""
    now = MatchRepository.state_at(entry, upto)
    if now is None or now.game is None or game > now.game.game_index:
        raise NotFoundError(f"The match has no game {game + 1}.")
    if not game_over(now, game):
        raise GameInPlayError(
            f"Game {game + 1} is still in play: its GIF is made once it is over.", game=game
        )
    show_all = _show_all(entry, upto)
    frames: list[dict[str, Any]] = []
    for applied in MatchRepository.states_between(entry, 0, upto):
        state_game = applied.state.game
        if state_game is None or state_game.game_index != game:
            continue
        frame, _view = frame_of(applied, None, now, show_all)  # a keyframe: its whole view
        frames.append(frame)
    return frames


def build_gif(store: EventStore, job: dict[str, Any]) -> tuple[bytes, bool]:
    entry = held(store, job["match_id"], job["version"])
    frames = game_frames(entry, job["version"], job["game"])
    body, _count = game_gif(frames, _players(entry), job.get("speed", 1.0), _lang(job))
    return body, _live(entry, job["version"])


def position_frame(entry: MatchEntry, upto: int, at: int) -> dict[str, Any] | None:
    """The replay frame after event `at` (None at 0: before any event), judged against the
    match after `upto` events: the spectator's view while its game runs, every card after."""
    if at > upto:
        raise NotFoundError(f"The match has only {upto} events, not {at}.")
    if at == 0:
        return None
    now = MatchRepository.state_at(entry, upto)
    (applied,) = MatchRepository.states_between(entry, at - 1, at)
    frame, _view = frame_of(applied, None, now, _show_all(entry, upto))
    return frame


def build_png(store: EventStore, job: dict[str, Any]) -> tuple[bytes, bool]:
    entry = held(store, job["match_id"], job["version"])
    at = job.get("at")
    if at is not None and not isinstance(at, int):
        raise InvalidInputError("version is a whole number.")
    frame = position_frame(entry, job["version"], job["version"] if at is None else at)
    return position_png(frame, _players(entry), _lang(job)), _live(entry, job["version"])


def _lang(job: dict[str, Any]) -> str:
    """The language a picture's words are in (one of server/wire/languages.py LANGUAGES)."""
    return supported(job.get("lang")) or DEFAULT
