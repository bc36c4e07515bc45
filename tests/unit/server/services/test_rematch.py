"""A rematch is an offer and an answer: both players keep their seats (and seat tokens), nobody
else can sit down at the new table, and an offer declined or left unanswered says so."""

from __future__ import annotations

import pytest

from eventstore import open_store
from server.errors import ForbiddenError, NoRematchOfferError, NotPlayingError, SeatTakenError
from server.model.tables import REMATCH_OFFER_MS
from server.service import GameService
from tests.seat_kit import token_of
from tests.unit.server.clock import Clock


def _finished(clock: Clock, bot: str | None = None) -> tuple[GameService, str, str, str | None]:
    """Ann (seat 0) and Bob (seat 1), or Ann and a bot, after a one-game match Ann resigned."""
    service = GameService(open_store("memory://"), grace_s=60, clock=clock)
    service.autopilot.start()
    opened = service.openings.open_table(name="Ann", options={"match": "wins:1"}, bot=bot)
    match_id = opened["match_id"]
    bob = None if bot else service.seats.join_seat(match_id, "Bob")["seat_token"]
    service.player_commands.execute(
        match_id, token_of(opened), "c-resign-0", {"do": "resign", "seat": 0}
    )
    assert service.repo.find(match_id).status == "finished"
    return service, match_id, token_of(opened), bob


def test_an_accepted_offer_opens_a_table_with_both_players_in_their_seats() -> None:
    clock = Clock()
    service, match_id, ann, bob = _finished(clock)
    assert bob is not None
    offer = service.rematches.rematch(match_id, bob, "offer")
    assert offer["status"] == "offered" and offer["seat"] == 1
    assert offer["expires_at_ms"] == clock.ms + REMATCH_OFFER_MS
    table = service.views.table(match_id)
    assert table["rematch_offer"] == {
        "seat": 1,
        "at_ms": clock.ms,
        "expires_at_ms": clock.ms + REMATCH_OFFER_MS,
    }
    assert table["rematch"] is None
    with pytest.raises(NoRematchOfferError, match="no rematch offer to accept"):
        service.rematches.rematch(match_id, bob, "accept")  # his own offer is not his to accept

    opened = service.rematches.rematch(match_id, ann, "accept")
    assert opened["status"] == "opened" and opened["seat"] == 0
    new_id = opened["match_id"]
    assert opened["seat_token"] == ann  # the token she had
    new = service.views.table(new_id)
    assert [s["name"] for s in new["seats"]] == ["Ann", "Bob"]
    assert new["status"] == "playing" and new["rematch_of"] == match_id
    assert new["ruleset"] == service.views.table(match_id)["ruleset"]
    assert service.seats.seat_for(new_id, ann) == 0
    assert service.seats.seat_for(new_id, bob) == 1
    old = service.views.table(match_id)
    assert old["rematch"] == new_id and old["rematch_offer"] is None
    # The seats are taken: a spectator following the link can only watch.
    with pytest.raises(SeatTakenError, match="full"):
        service.seats.join_seat(new_id, "Eve")
    with pytest.raises(SeatTakenError, match="already open"):
        service.rematches.rematch(match_id, bob, "offer")
    # The new match is under way, the players may act in it with their tokens.
    state = service.repo.find(new_id).state
    assert state is not None and state.game is not None and not state.game.over


def test_two_offers_make_an_acceptance() -> None:
    clock = Clock()
    service, match_id, ann, bob = _finished(clock)
    assert bob is not None
    assert service.rematches.rematch(match_id, ann)["status"] == "offered"
    both = service.rematches.rematch(match_id, bob)
    assert both["status"] == "opened" and both["seat"] == 1


def test_a_declined_offer_says_so_and_a_new_offer_clears_it() -> None:
    clock = Clock()
    service, match_id, ann, bob = _finished(clock)
    assert bob is not None
    with pytest.raises(NoRematchOfferError, match="no rematch offer to decline"):
        service.rematches.rematch(match_id, bob, "decline")
    service.rematches.rematch(match_id, ann)
    clock.ms += 1000
    declined = service.rematches.rematch(match_id, bob, "decline")
    assert declined == {"ok": True, "status": "declined", "seat": 1}
    table = service.views.table(match_id)
    assert table["rematch_declined"] == {"seat": 1, "at_ms": clock.ms}
    assert table["rematch_offer"] is None and table["rematch"] is None
    with pytest.raises(NoRematchOfferError):
        service.rematches.rematch(match_id, ann, "accept")  # nothing left to accept
    service.rematches.rematch(match_id, bob)  # he changes his mind: his own offer
    table = service.views.table(match_id)
    assert table["rematch_offer"] is not None
    assert table["rematch_declined"] is None and table["rematch_offer"]["seat"] == 1


def test_an_unanswered_offer_lapses() -> None:
    clock = Clock()
    service, match_id, ann, bob = _finished(clock)
    assert bob is not None
    service.rematches.rematch(match_id, ann)
    clock.ms += REMATCH_OFFER_MS
    with pytest.raises(NoRematchOfferError, match="lapsed"):
        service.rematches.rematch(match_id, bob, "accept")
    # Bob's own offer now is an offer, not an acceptance of the lapsed one.
    assert service.rematches.rematch(match_id, bob)["status"] == "offered"


def test_a_bot_accepts_at_once_and_keeps_its_seat() -> None:
    clock = Clock()
    service, match_id, ann, _ = _finished(clock, bot="steady")
    opened = service.rematches.rematch(match_id, ann)
    assert opened["status"] == "opened"
    new = service.views.table(opened["match_id"])
    assert new["seats"][1]["bot"] == "steady" and new["seats"][0]["name"] == "Ann"


def test_no_rematch_before_the_end_or_for_a_stranger() -> None:
    clock = Clock()
    service = GameService(open_store("memory://"), grace_s=60, clock=clock)
    service.autopilot.start()
    opened = service.openings.open_table(name="Ann", bot="random")
    with pytest.raises(NotPlayingError, match="once the match is over"):
        service.rematches.rematch(opened["match_id"], token_of(opened))
    with pytest.raises(ForbiddenError):
        service.rematches.rematch(opened["match_id"], "not-a-token-at-all")
