"""The shared pictures (server/readmodels/share/picture.py, animate.py, build.py) through the app:
the GIF of a finished game (one frame per event, its size, its pace), refused for a game in play;
the picture of a position, which for a running game is the spectator's view and never shows a
face-down card (the leak rule of tests/unit/domain/test_properties.py `check_views`)."""

from __future__ import annotations

import io
import itertools
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from PIL import Image
from PIL.GifImagePlugin import GifImageFile

import domain
from domain.piles import HAND_SET, RESERVE, SECOND_RESERVE
from eventstore import open_store
from server.app import create_app
from server.config import ServerConfig
from server.errors import GameInPlayError
from server.readmodels.share import picture
from server.readmodels.share.animate import HOLD_MS, MAX_FRAMES, sampled
from server.readmodels.share.build import game_frames, position_frame
from server.service import GameService
from server.wire.languages import LANGUAGES
from tests.seat_kit import seat_of, token_of

GOLDEN = Path(__file__).resolve().parents[3] / "data" / "records"


@pytest.fixture(params=["in_process", "worker"])
def client(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[FlaskClient]:
    store = "memory://" if request.param == "in_process" else f"sqlite:///{tmp_path / 's.db'}"
    app, _socketio = create_app(ServerConfig(async_mode="threading", store_url=store))
    yield app.test_client()
    workers = app.extensions["crapette"].reads.workers
    if workers is not None:
        workers.close()


def _import(client: FlaskClient, name: str) -> str:
    response = client.post("/api/records", data=(GOLDEN / f"{name}.json").read_bytes())
    assert response.status_code == 201, response.get_json()
    match_id: str = response.get_json()["match_id"]
    return match_id


def _events_of_game(client: FlaskClient, match_id: str, game: int) -> int:
    frames = client.get(f"/api/matches/{match_id}/replay").get_json()["frames"]
    return sum(1 for f in frames if f["game_index"] == game)


@pytest.mark.slow  # over 30 s on a loaded 2-core machine: out of the quick loop
def test_the_gif_of_a_finished_game_has_a_frame_per_event(client: FlaskClient) -> None:
    match_id = _import(client, "classic-win-recycle")
    response = client.get(f"/api/matches/{match_id}/game.gif?game=0")
    assert response.status_code == 200, response.get_json()
    assert response.mimetype == "image/gif"
    gif = Image.open(io.BytesIO(response.data))
    assert isinstance(gif, GifImageFile)
    assert gif.size == (picture.WIDTH, picture.HEIGHT)
    assert gif.n_frames == min(MAX_FRAMES, _events_of_game(client, match_id, 0))
    assert gif.info["duration"] == 800
    gif.seek(gif.n_frames - 1)
    assert gif.info["duration"] == HOLD_MS  # the end is held
    fast = client.get(f"/api/matches/{match_id}/game.gif?game=0&speed=4")
    fast_gif = Image.open(io.BytesIO(fast.data))
    assert isinstance(fast_gif, GifImageFile)
    assert fast_gif.n_frames == gif.n_frames and fast_gif.info["duration"] == 200
    tag = {"If-None-Match": response.get_etag()[0]}
    again = client.get(f"/api/matches/{match_id}/game.gif?game=0", headers=tag)
    assert again.status_code == 304  # built once: cached by version


def test_gif_requests_that_cannot_be_met_are_structured(client: FlaskClient) -> None:
    match_id = _import(client, "classic-win-recycle")
    bad = client.get(f"/api/matches/{match_id}/game.gif?game=0&speed=3")
    assert bad.status_code == 400 and bad.get_json()["code"] == "invalid"
    bad = client.get(f"/api/matches/{match_id}/game.gif?game=x")
    assert bad.status_code == 400 and bad.get_json()["code"] == "invalid"
    missing = client.get(f"/api/matches/{match_id}/game.gif?game=5")
    assert missing.status_code == 404 and missing.get_json()["code"] == "not_found"
    missing = client.get("/api/matches/nope/game.gif")
    assert missing.status_code == 404


def test_a_long_game_keeps_its_first_and_last_frames() -> None:
    frames = [{"version": v} for v in range(1, 1001)]
    kept = sampled(frames)
    assert len(kept) == MAX_FRAMES
    assert kept[0]["version"] == 1 and kept[-1]["version"] == 1000
    assert sampled(frames[:10]) == frames[:10]


def test_the_picture_of_a_finished_position_shows_its_cards(client: FlaskClient) -> None:
    match_id = _import(client, "classic-win-recycle")
    response = client.get(f"/api/matches/{match_id}/position.png?version=5")
    assert response.status_code == 200 and response.mimetype == "image/png"
    image = Image.open(io.BytesIO(response.data))
    assert image.size == (picture.WIDTH, picture.HEIGHT)
    assert client.get(f"/api/matches/{match_id}/position.png").status_code == 200
    assert client.get(f"/api/matches/{match_id}/position.png?version=99999").status_code == 404
    bad = client.get(f"/api/matches/{match_id}/position.png?version=-1")
    assert bad.status_code == 400 and bad.get_json()["code"] == "invalid"


def _hidden(game: Any) -> set[str]:
    """The leak rule's hidden cards (tests/unit/domain/test_properties.py `check_views`): the
    hands and every reserve card below the top."""
    hidden = {str(card) for hand in HAND_SET for card in game.p[hand]}
    hidden |= {str(card) for seat in (0, 1) for card in game.p[RESERVE[seat]][:-1]}
    hidden |= {str(card) for seat in (0, 1) for card in game.p[SECOND_RESERVE[seat]][:-1]}
    return hidden


def _running_match() -> tuple[GameService, str, str]:
    ticks = itertools.count(int(time.time() * 1000) + 1000, 450)
    service = GameService(open_store("memory://"), bot_delay_s=0, clock=lambda: next(ticks))
    opened = service.openings.open_table(name="Ann", bot="random")
    match_id = opened["match_id"]
    service.clients.connect(match_id, seat_of(opened))  # Ann is at the table: the bot plays
    for number in range(30):
        state = service.repo.find(match_id).state
        assert state is not None
        if state.game is not None and state.game.to_move == 0:
            action = domain.legal_actions(state, 0)[0]
            service.player_commands.execute(
                match_id, token_of(opened), f"c-{number}", action.to_json()
            )
        else:
            service.autopilot.tick()
    return service, match_id, token_of(opened)


def test_a_running_game_s_picture_never_shows_a_face_down_card() -> None:
    service, match_id, token = _running_match()
    entry = service.repo.find(match_id)
    upto = entry.version
    assert upto > 10
    players = [seat.name or "" for seat in entry.table.seats]
    for at in range(1, upto + 1):
        state = service.repo.state_at(entry, at)
        assert state is not None
        frame = position_frame(entry, upto, at)
        assert frame is not None
        drawn = picture.draw_view(frame["view"], players)
        if state.game is None:  # before the deal: no card at all
            assert drawn.faces == []
            continue
        leaked = set(drawn.faces) & _hidden(state.game)
        assert not leaked, f"version {at} draws {leaked}"
        # What is drawn is the spectator's view of that moment, card for card.
        spectator = domain.view(state, None).to_json()["piles"]
        assert frame["view"]["piles"] == spectator
    # The endpoint's picture is that drawing, pixel for pixel.
    built = service.reads.shared("png", match_id, "now", at=None)
    last = position_frame(entry, upto, upto)
    assert last is not None
    at_end = picture.draw_view(last["view"], players, picture.caption_of(last, players))
    assert built.live is True
    assert Image.open(io.BytesIO(built.body)).convert("RGB").tobytes() == at_end.image.tobytes()
    # The running game has no GIF; once it is over it has, and its cards are all shown.
    with pytest.raises(GameInPlayError, match="still in play"):
        game_frames(entry, upto, 0)
    service.player_commands.execute(match_id, token, "c-resign", domain.Resign(0).to_json())
    frames = game_frames(entry, entry.version, 0)
    assert None not in frames[1]["view"]["piles"]["H0"]


def test_every_suit_and_rank_draws_and_a_view_without_piles_is_an_empty_table() -> None:
    for suit in "SHDC":
        for rank in "A23456789TJQK":
            stamp = picture.face(f"{rank}{suit}/1")
            assert stamp.size == (picture.CW, picture.CH)
    empty = picture.draw_view(None, ["Ann", "Bob"])
    assert empty.faces == []
    with pytest.raises(ValueError, match="not a card"):
        picture.parse_card("11S")
    assert json.dumps(picture.caption_of({"event": {"type": "TurnEnded"}, "view": None}, []))


def test_a_rotation_table_s_picture_names_the_pair_seated_then(client: FlaskClient) -> None:
    """At a rotation table the seats change hands (docs/spec/rules.md §10): each game's
    picture names its own pair, as the frame's view does, and so does its caption."""
    from server.readmodels.replays import decode_frames

    match_id = _import(client, "italian-four-session")
    replay = client.get(f"/api/matches/{match_id}/replay").get_json()
    frames = decode_frames(replay["frames"])
    moves = [f for f in frames if f["event"]["type"] == "CardMoved" and f["view"].get("players")]
    assert len({tuple(f["view"]["players"]) for f in moves}) > 1, "more than one pair played"
    for frame in moves:
        view = frame["view"]
        assert picture.seated(view, replay["players"]) == view["players"]
        seat = view["last_action"]["seat"]
        assert picture.caption_of(frame, ["x", "y"]).startswith(f"{view['players'][seat]}: ")


# A pile code (tests/browser/ui.py PILE_CODE), a card code ("8D", "TS/1") or an event's name
# ("GameStarted"): none may reach a picture (issue 39).
CODES = re.compile(
    r"\b([RQHIJXW][01]|[TF][0-7])\b|\b(10|[A2-9TJQK])[SHDC](/[01])?\b|\b[A-Z][a-z]+[A-Z]\w*\b"
)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_caption_is_in_words_in_each_language(lang: str) -> None:
    """Every frame of every recorded match, captioned and headed in each of the client's
    languages: card symbols and pile names, never a code; the same frame in English and in
    another language reads differently (the words are that language's)."""
    from server.readmodels.replays import decode_frames
    from server.readmodels.share.words import Words

    app, _socketio = create_app(ServerConfig(async_mode="threading", store_url="memory://"))
    client = app.test_client()
    words, english = Words(lang), Words("en")
    differ = 0
    for path in sorted(GOLDEN.glob("*.json")):
        match_id = _import(client, path.stem)
        replay = client.get(f"/api/matches/{match_id}/replay").get_json()
        for frame in decode_frames(replay["frames"]):
            said = picture.caption_of(frame, replay["players"], words)
            assert not CODES.search(said), (path.stem, frame["event"]["type"], said)
            assert said or frame["event"]["type"] in ("CompulsoryMovePlayed",), frame["event"]
            view = frame.get("view")
            if view and view.get("game_index") is not None:
                where = words.where(view["game_index"], view.get("turn_number") or 0)
                assert not CODES.search(where)
            differ += said != picture.caption_of(frame, replay["players"], english)
            for pile in (view or {}).get("piles") or {}:
                assert not CODES.search(words.slot(pile[0]) if pile[0] in "RQHIJXW" else "")
    assert lang == "en" or differ > 0


def test_a_caption_names_cards_by_symbol_and_piles_in_words() -> None:
    from server.readmodels.share.words import Words

    frame = {
        "event": {"type": "CardMoved"},
        "view": {
            "last_action": {"do": "move", "seat": 1, "from": "X1", "to": "T2", "card": "8D/1"},
            "piles": {"X1": [], "T2": ["9S/0", "8D/1"]},
        },
    }
    players = ["Nina", "steady bot"]
    assert picture.caption_of(frame, players) == "Steady bot: 8♦ from their turned card to house 3"
    assert picture.caption_of(frame, players, Words("fr")).startswith("Robot régulier\u00a0: 8♦")
    turn = {
        "event": {"type": "HandCardTurned"},
        "view": {"last_action": {"do": "turn", "seat": 1, "card": "2D/1"}},
    }
    assert picture.caption_of(turn, players) == "Steady bot turned 2♦"
    assert picture.caption_of(turn, players, Words("fr")) == "Robot régulier retourne 2♦"
