"""The application service in process (memory store, a clock of our own): seats, grace, and the
namespaces of command ids."""

from __future__ import annotations

from typing import Any

import pytest

import domain
from eventstore import open_store
from server.adapters.matches import now_ms
from server.errors import InvalidInputError, NotFoundError, TooEarlyError
from server.service import GameService
from server.wire.payloads import SeatTicket
from tests.seat_kit import seat_of, token_of
from tests.unit.server.clock import Clock


def _table(clock: Clock) -> tuple[GameService, str, str, str]:
    service = GameService(open_store("memory://"), grace_s=60, clock=clock)
    service.autopilot.start()
    clock.ms += 3_600_000  # the server has been up an hour when the table opens
    opened = service.openings.open_table(name="Ann", options={"enforcement": "lenient"})
    joined = service.seats.join_seat(opened["match_id"], "Bob")
    return service, opened["match_id"], token_of(opened), token_of(joined)


def test_a_seat_just_taken_cannot_be_claimed_before_its_grace() -> None:
    clock = Clock()
    service, match_id, ann, _ = _table(clock)
    with pytest.raises(TooEarlyError):
        service.seats.claim(match_id, ann, "resign")
    clock.ms += 61_000  # Bob never connected: now he has been away longer than the grace
    assert service.seats.claim(match_id, ann, "resign") == {"ok": True}


def _mover(
    service: GameService, match_id: str, tokens: dict[int, str]
) -> tuple[int, str, dict[str, Any]]:
    state = service.repo.find(match_id).state
    assert state is not None and state.game is not None
    seat = state.game.to_move
    action = domain.legal_actions(state, seat)[0]
    return seat, tokens[seat], action.to_json()


def test_a_client_cannot_reuse_the_servers_or_the_opponents_command_ids() -> None:
    clock = Clock()
    service, match_id, ann, bob = _table(clock)
    tokens = {0: ann, 1: bob}
    seat, token, action = _mover(service, match_id, tokens)
    version = service.repo.find(match_id).version
    # "start-game-1" is the id the server gave its own first StartGame command.
    result = service.player_commands.execute(match_id, token, "start-game-1", action)
    assert "duplicate" not in result and result["version"] > version
    store_version = service.repo.store.stream_version(f"match-{match_id}")
    assert service.repo.find(match_id).version == store_version

    # The opponent's id is no excuse to skip a command either.
    seat2, token2, action2 = _mover(service, match_id, tokens)
    if seat2 != seat:
        result = service.player_commands.execute(match_id, token2, "start-game-1", action2)
        assert "duplicate" not in result
    # A retry by the same seat is still applied once.
    again = service.player_commands.execute(match_id, token2, "start-game-1", action2)
    assert again.get("duplicate") is True


@pytest.mark.parametrize("match_id", ["\x00", "", "../etc", "m" * 200])
def test_a_match_id_that_cannot_exist_is_not_found(match_id: str) -> None:
    service = GameService(open_store("memory://"))
    with pytest.raises(NotFoundError):
        service.repo.find(match_id)


def test_ids_with_a_trailing_newline_are_refused() -> None:
    from server.entrypoints.schemas import CommandSchema

    errors = CommandSchema().validate(
        {
            "match_id": "m-0123456789\n",
            "seat_token": "x" * 20,
            "command_id": "abcdefgh\n",
            "action": {"do": "turn", "seat": 0},
        }
    )
    assert set(errors) == {"match_id", "command_id"}


def test_a_seated_bot_calls_crapette_only_after_its_human_like_delay() -> None:
    from domain.bots import make_bot
    from server.adapters.matches import now_ms

    clock = Clock()
    clock.ms = now_ms()  # events are stamped with the wall clock; bots' pace is measured from it
    service = GameService(open_store("memory://"), bot_delay_s=0.4, clock=clock)
    for _ in range(60):  # a deal where the human moves first and can break a priority
        opened = service.openings.open_table(
            name="Ann", bot="steady", options={"enforcement": "call"}
        )
        match_id, seat = opened["match_id"], seat_of(opened)
        state = service.repo.find(match_id).state
        assert state is not None and state.game is not None
        faults = [
            a
            for a in domain.legal_actions(state, seat)
            if state.game.to_move == seat and domain.fault_of(state, a) is not None
        ]
        if faults:
            break
    else:
        raise AssertionError("no deal gave the human a fault to commit")
    entry = service.repo.find(match_id)
    service.clients.connect(match_id, seat)  # Ann is at the table: the bot plays only then
    entry.bots[1 - seat] = make_bot("steady", miss_call_rate=0.0, seed=3)  # never misses
    service.player_commands.execute(match_id, token_of(opened), "fault-0001", faults[0].to_json())
    faulted_at = entry.last_event_ms
    version = entry.version

    clock.ms = faulted_at + 500  # past the bot pace (0.4 s), before any call delay it hints
    service.autopilot.tick()
    assert entry.version == version

    clock.ms = faulted_at + 5_000  # well past the longest hint
    service.autopilot.tick()
    called = [e for e in entry.events[version:] if type(e).__name__ == "CrapetteCalled"]
    assert called and isinstance(called[0], domain.CrapetteCalled)
    assert called[0].verdict == "right"


class _BrokenBot:
    def choose(self, view: object) -> object:
        raise RuntimeError("this bot is broken")


@pytest.mark.parametrize("failure", ["choose", "make"])
def test_a_failing_bot_is_replaced_by_the_stand_in_and_the_table_plays_on(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, failure: str
) -> None:
    import server.adapters.matches
    import server.services.autopilot
    import server.services.standin

    def broken(name: str) -> _BrokenBot:
        if failure == "make":  # e.g. a stored match naming a bot this server no longer has
            raise KeyError(name)
        return _BrokenBot()

    monkeypatch.setattr(server.services.autopilot, "make_bot", broken)
    clock = Clock()
    # The bots' pace counts from the store's record times, which are the wall clock's.
    clock.ms = server.adapters.matches.now_ms()
    service = GameService(open_store("memory://"), grace_s=60, clock=clock, bot_delay_s=0.01)
    service.autopilot.start()
    opened = service.openings.open_table(name="Ann", preset="beginner", bot="steady")
    match_id = opened["match_id"]
    entry = service.repo.find(match_id)
    service.clients.connect(match_id, seat_of(opened))  # Ann is at the table: the bot plays
    bot_seat = 1 - seat_of(opened)
    played = 0
    for _ in range(400):  # Ann plays her turns with her first legal action; the bot its own
        state = entry.state
        assert state is not None
        if state.game is None or state.game.over or played >= 3:
            break
        before = entry.version
        seat = state.game.to_move
        if seat == bot_seat:
            clock.ms += 1_000
            service.autopilot.tick()
            assert entry.version > before, "the table hung on a failing bot"
            played += 1
        else:
            action = domain.legal_actions(state, seat)[0].to_json()
            service.player_commands.execute(match_id, token_of(opened), f"ann-{before:06d}", action)
    assert played == 3
    if failure == "make":  # tried once, said once; the stand-in keeps the seat
        assert caplog.text.count("bot steady cannot be made") == 1
        assert isinstance(entry.bots[bot_seat], server.services.standin.RandomLegalBot)
    else:
        assert caplog.text.count("bot steady failed") == 3


@pytest.mark.parametrize("where", ["options", "field"])
def test_a_tables_time_limit_is_at_most_an_hour_however_it_is_given(where: str) -> None:
    service = GameService(open_store("memory://"), grace_s=60, clock=Clock())
    service.autopilot.start()

    def open_with(limit: int) -> SeatTicket:
        if where == "options":
            return service.openings.open_table(name="Ann", options={"move_time_limit_s": limit})
        return service.openings.open_table(name="Ann", move_time_limit_s=limit)

    with pytest.raises(InvalidInputError, match="at most 3600"):
        open_with(10**30)
    with pytest.raises(InvalidInputError, match="at most 3600"):
        open_with(3601)
    opened = open_with(3600)
    assert service.repo.find(opened["match_id"]).table.ruleset["move_time_limit_s"] == 3600


def test_no_time_limit_means_none_even_for_a_preset_that_has_one() -> None:
    from server.entrypoints import schemas

    service = GameService(open_store("memory://"), grace_s=60, clock=Clock())
    service.autopilot.start()
    finnish = domain.Ruleset.preset("finnish").move_time_limit_s
    assert finnish  # the preset has a limit

    def limit_of(body: dict[str, Any]) -> object:
        opened = service.openings.open_table(**schemas.load(schemas.CREATE_TABLE, body))
        return service.repo.find(opened["match_id"]).table.ruleset["move_time_limit_s"]

    assert limit_of({"name": "A", "preset": "finnish"}) == finnish  # left out: the preset's
    assert limit_of({"name": "A", "preset": "finnish", "move_time_limit_s": None}) is None
    assert limit_of({"name": "A", "preset": "finnish", "move_time_limit_s": 45}) == 45
    with pytest.raises(InvalidInputError):  # whole seconds, as a JSON integer
        limit_of({"name": "A", "preset": "finnish", "move_time_limit_s": 30.5})


def test_the_clock_skips_a_quiet_game_until_a_bot_takes_a_seat() -> None:
    """A game with no time limit and no bot has nothing for the clock to do: a tick marks it
    quiet and later ticks pass it by, until the table or the match moves. A bot that takes
    over an absent player's seat (a table event) brings it back, and the bot plays."""
    clock = Clock()
    service, match_id, ann, _bob = _table(clock)
    entry = service.repo.find(match_id)
    assert entry.state is not None and entry.state.ruleset.move_time_limit_s is None
    service.autopilot.tick()
    assert entry.quiet == (entry.version, entry.table)
    clock.ms += 61_000  # Bob never came: Ann hands his seat to a bot
    service.seats.claim(match_id, ann, "bot")
    assert entry.quiet != (entry.version, entry.table)
    # Ann moves until it is the bot's turn (each move a new version: ticked again).
    for _ in range(200):
        assert entry.state is not None and entry.state.game is not None
        if entry.state.game.to_move == 1:
            break
        legal = [a.to_json() for a in domain.legal_actions(entry.state, 0)]
        legal = [a for a in legal if a["do"] not in ("resign", "offer-draw", "call")]
        # Ending the turn when she can (a discard), else any move: the bot's turn comes.
        action = next((a for a in legal if a["do"] == "discard"), legal[0])
        service.player_commands.execute(match_id, ann, f"a{entry.version}", action)
    assert entry.state is not None and entry.state.game is not None
    assert entry.state.game.to_move == 1
    before = entry.version
    clock.ms = now_ms() + 60_000  # past the bot's pace (event times are the wall clock's)
    service.autopilot.tick()
    assert entry.version > before  # the bot moved
