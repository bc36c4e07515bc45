"""Rotation tables (docs/spec/rules.md §10, `rotation`): the queue, the seat change after a won
game, each person's session total, and the end of the session at the target."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain import (
    AcceptDraw,
    Act,
    JoinQueue,
    LeaveQueue,
    MatchState,
    MatchWon,
    OfferDraw,
    PlayerLeftQueue,
    PlayerQueued,
    Resign,
    RulesError,
    Ruleset,
    SeatsRotated,
    Session,
    StartGame,
    StartMatch,
    decide_and_fold,
    event_from_payload,
    event_to_payload,
    fold,
    view,
)
from domain.actions import parse_action
from domain.events import GameWon
from domain.ruleset import Rotation
from tests.unit.domain.rules_kit import position

AT = 1_764_435_721_000


def seed(n: int) -> str:
    return f"{n:064x}"


class Table:
    """A rotation session driven through `decide_and_fold`, keeping every event."""

    def __init__(
        self, mode: Rotation = "winner_out", match: str = "points:300", *people: str
    ) -> None:
        ruleset = replace(Ruleset.preset("italian"), rotation=mode, match=match)
        names = people or ("Ann", "Bob")
        self.events: list[Any] = []
        self.state: MatchState | None = None
        self.do(StartMatch("m-rot", ruleset, (names[0], names[1]), AT))
        self.games = 0

    def do(self, command: Any) -> list[Any]:
        events, self.state = decide_and_fold(self.state, command)
        self.events.extend(events)
        return events

    @property
    def now(self) -> MatchState:
        assert self.state is not None
        return self.state

    def join(self, name: str) -> list[Any]:
        return self.do(JoinQueue(name, AT))

    def deal(self) -> None:
        self.do(StartGame(seed(self.games + 1), None, AT))
        self.games += 1

    def resign(self, name: str) -> list[Any]:
        """`name`, seated, resigns the running game (his opponent wins it)."""
        return self.do(Act(Resign(self.now.players.index(name)), AT))

    def draw(self) -> list[Any]:
        self.do(Act(OfferDraw(0), AT))
        return self.do(Act(AcceptDraw(1), AT))

    def total(self, name: str) -> int:
        session = self.now.session
        assert session is not None
        return session.totals[session.people.index(name)]


def rotated(events: list[Any]) -> SeatsRotated | None:
    found = [e for e in events if isinstance(e, SeatsRotated)]
    return found[0] if found else None


def test_winner_out_the_winner_gives_his_seat_to_the_first_waiting_and_goes_to_the_back() -> None:
    table = Table("winner_out")
    table.join("Cid")
    table.join("Dan")
    table.deal()
    events = table.resign("Bob")  # Ann (seat 0) wins game 0
    change = rotated(events)
    assert change == SeatsRotated(0, "Ann", "Cid", 0, ("Cid", "Bob"), ("Dan", "Ann"), AT)
    assert events[-1] is change  # the seat change closes the game's batch
    assert table.now.players == ("Cid", "Bob")
    session = table.now.session
    assert session is not None and session.queue == ("Dan", "Ann")
    won = table.now.game_scores[0][0]
    assert won > 0 and table.total("Ann") == won and table.total("Bob") == 0
    assert table.now.totals == (0, 0)  # the seated pair's session totals: Cid's and Bob's
    table.deal()
    events = table.resign("Cid")  # Bob (seat 1) wins game 1 and leaves
    assert rotated(events) == SeatsRotated(1, "Bob", "Dan", 1, ("Cid", "Dan"), ("Ann", "Bob"), AT)


def test_loser_out_king_of_the_table_the_loser_leaves() -> None:
    table = Table("loser_out")
    table.join("Cid")
    table.deal()
    events = table.resign("Bob")
    assert rotated(events) == SeatsRotated(0, "Bob", "Cid", 1, ("Ann", "Cid"), ("Bob",), AT)
    table.deal()
    events = table.resign("Ann")  # the king loses: Bob comes back into seat 0
    assert rotated(events) == SeatsRotated(1, "Ann", "Bob", 0, ("Bob", "Cid"), ("Ann",), AT)
    assert table.now.wins == (0, 1) and table.now.session is not None
    assert table.now.session.wins == (1, 0, 1)


@pytest.mark.parametrize("mode", ["winner_out", "loser_out"])
def test_after_a_stalemate_nobody_moves(mode: Rotation) -> None:
    table = Table(mode)
    table.join("Cid")
    table.deal()
    events = table.draw()
    assert rotated(events) is None and table.now.players == ("Ann", "Bob")
    assert table.now.session is not None and table.now.session.queue == ("Cid",)


def test_a_win_by_the_last_card_rotates_too() -> None:
    table = Table("winner_out")
    table.join("Cid")
    table.deal()
    # Replace the running game by one that seat 1 wins with his last card.
    start = position("R1=AS/1 T0=KD,QC,JD to=1", "italian")
    assert start.game is not None
    state = table.now._replace(game=start.game._evolved(game_index=0))
    events, after = decide_and_fold(state, Act(parse_action("R1-F0", seat=1), AT))
    assert type(events[-2]).__name__ == "GameWon"
    assert isinstance(events[-2], GameWon)
    assert events[-1] == SeatsRotated(0, "Bob", "Cid", 1, ("Ann", "Cid"), ("Bob",), AT)
    assert after.session is not None and after.session.totals[1] == events[-2].score[1]


def test_nobody_waits_nobody_moves() -> None:
    table = Table("winner_out")
    table.deal()
    assert rotated(table.resign("Ann")) is None
    assert table.now.players == ("Ann", "Bob")


def test_the_session_ends_when_one_persons_total_reaches_the_points_target() -> None:
    table = Table("winner_out", "points:150")
    table.join("Cid")
    ended: list[Any] = []
    while not table.now.finished:
        table.deal()
        seated = table.now.players
        ended = table.resign(seated[1])  # seat 0 wins every game
    won = ended[-1]
    assert isinstance(won, MatchWon) and rotated(ended) is None
    session = table.now.session
    assert session is not None
    assert won.player is not None and session.totals[session.people.index(won.player)] >= 150
    assert table.now.players[won.winner] == won.player
    assert max(session.totals) == session.totals[session.people.index(won.player)]
    with pytest.raises(RulesError):
        table.join("Dan")  # the session is over


def test_the_session_ends_at_the_wins_target_counted_per_person() -> None:
    table = Table("loser_out", "wins:2")
    table.join("Cid")
    table.deal()
    table.resign("Bob")  # Ann 1 win; Cid takes Bob's seat
    table.deal()
    events = table.resign("Cid")  # Ann 2 wins: the session is hers
    assert events[-1] == MatchWon(0, table.now.totals, AT, "Ann")
    assert table.now.finished and table.now.winner == 0


def test_a_tie_at_the_target_plays_on() -> None:
    table = Table("winner_out", "wins:1")
    table.join("Cid")
    table.deal()
    assert isinstance(table.resign("Bob")[-1], MatchWon)  # Ann alone at 1 win: over
    table = Table("winner_out", "wins:2")
    table.join("Cid")
    for loser in ("Bob", "Cid", "Ann"):  # Ann, then Bob, then Cid win one game each
        table.deal()
        table.resign(loser)
    assert not table.now.finished


def test_joining_and_leaving_the_queue() -> None:
    table = Table("winner_out")
    assert table.join("Cid") == [PlayerQueued("Cid", AT)]
    with pytest.raises(RulesError, match="already a player"):
        table.join("Ann")
    table.join("Dan")
    with pytest.raises(RulesError, match="holds 4 people"):
        table.join("Eve")
    assert table.do(LeaveQueue("Cid", AT)) == [PlayerLeftQueue("Cid", AT)]
    with pytest.raises(RulesError, match="not waiting"):
        table.do(LeaveQueue("Ann", AT))  # a seated person resigns; he does not leave
    with pytest.raises(RulesError, match="already a player"):
        table.join("Cid")  # he left for good
    session = table.now.session
    assert session is not None and session.queue == ("Dan",) and session.gone == ("Cid",)
    with pytest.raises(RulesError, match="holds 4 people"):
        table.join("Eve")  # a place once taken stays taken


def test_only_a_rotation_table_has_a_queue_and_names_differ() -> None:
    state, _ = fold_two("classic")
    with pytest.raises(RulesError, match="rotation"):
        decide_and_fold(state, JoinQueue("Cid", AT))
    ruleset = replace(Ruleset.preset("italian-four"))
    with pytest.raises(RulesError, match="own name"):
        decide_and_fold(None, StartMatch("m", ruleset, ("Ann", "Ann"), AT))


def fold_two(preset: str) -> tuple[MatchState, list[Any]]:
    events, state = decide_and_fold(
        None, StartMatch("m", Ruleset.preset(preset), ("Ann", "Bob"), AT)
    )
    return state, events


def test_the_new_events_round_trip_and_a_two_seat_match_won_is_unchanged() -> None:
    for event in (
        PlayerQueued("Cid", AT),
        PlayerLeftQueue("Cid", AT),
        SeatsRotated(3, "Ann", "Cid", 0, ("Cid", "Bob"), ("Dan", "Ann"), AT),
        MatchWon(1, (10, 300), AT, "Dan"),
        MatchWon(1, (10, 300), AT),
    ):
        kind, payload = event_to_payload(event)
        assert event_from_payload(kind, payload) == event
    assert event_to_payload(MatchWon(1, (10, 300), AT))[1] == {
        "winner": 1,
        "totals": [10, 300],
        "at_ms": AT,
    }


def test_rotation_is_written_in_records_only_when_set() -> None:
    assert "rotation" not in Ruleset.preset("italian").to_record_json()
    assert Ruleset.preset("italian-four").to_record_json()["rotation"] == "winner_out"
    assert Ruleset.preset("italian-four") == replace(
        Ruleset.preset("italian"), rotation="winner_out"
    )
    assert Ruleset.from_json({"preset": "italian", "rotation": "loser_out"}).rotation == "loser_out"


def test_the_view_shows_the_session_only_at_a_rotation_table() -> None:
    table = Table("winner_out")
    table.join("Cid")
    table.deal()
    data = view(table.now, None).to_json()
    assert data["session"] == {
        "mode": "winner_out",
        "people": ["Ann", "Bob", "Cid"],
        "totals": [0, 0, 0],
        "wins": [0, 0, 0],
        "queue": ["Cid"],
    }
    state, _ = fold_two("italian")
    assert "session" not in view(state, 0).to_json()


def test_folding_the_events_again_gives_the_same_session() -> None:
    table = Table("loser_out")
    table.join("Cid")
    for loser in ("Bob", "Ann"):
        table.deal()
        table.resign(loser)
    assert fold(table.events) == table.now


# -- the properties ---------------------------------------------------------------------------

STEP = st.sampled_from(["join", "leave", "seat0", "seat1", "draw"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    mode=st.sampled_from(["winner_out", "loser_out"]),
    match=st.sampled_from(["points:400", "wins:3"]),
    steps=st.lists(STEP, min_size=1, max_size=30),
)
def test_totals_are_each_persons_game_scores_and_the_pair_is_two_people(
    mode: Rotation, match: str, steps: list[str]
) -> None:
    table = Table(mode, match)
    names = iter(("Cid", "Dan", "Eve"))
    earned: dict[str, int] = {"Ann": 0, "Bob": 0}
    for step in steps:
        if table.now.finished:
            break
        session = table.now.session
        assert session is not None
        if step == "join":
            name = next(names, None)
            if name is not None and len(session.people) < 4:
                table.join(name)
                earned[name] = 0
            continue
        if step == "leave":
            if session.queue:
                table.do(LeaveQueue(session.queue[-1], AT))
            continue
        table.deal()
        pair = table.now.players
        events = table.draw() if step == "draw" else table.resign(pair[int(step[-1])])
        ended = [e for e in events if hasattr(e, "score")][-1]
        for seat in (0, 1):
            earned[pair[seat]] += ended.score[seat]
        check_session(table.now, earned)
        if step == "draw":
            assert table.now.players == pair
    assert fold(table.events) == table.now


def check_session(state: MatchState, earned: dict[str, int]) -> None:
    session: Session | None = state.session
    assert session is not None
    assert dict(zip(session.people, session.totals, strict=True)) == earned
    a, b = state.players
    assert a != b and a in session.people and b in session.people
    assert a not in session.queue and b not in session.queue
    assert not set(session.queue) & set(session.gone)
    assert state.totals == tuple(session.totals[session.people.index(p)] for p in state.players)


def test_bots_play_a_whole_session_of_four_in_the_arena() -> None:
    """What `crapette selfplay --preset italian-four` does: two bots seated, two waiting, until
    one person's wins reach the target; every invariant checked after every event."""
    from domain.bots import make_bot
    from domain.bots.arena import derive_seed, play_match

    class Named:
        def __init__(self, label: str) -> None:
            self.bot = make_bot("steady", seed=derive_seed("r", label))
            self.name = f"steady ({label})"

        def choose(self, view: Any) -> Any:
            return self.bot.choose(view)

        def delay_hint_ms(self, action: Any) -> int:
            return self.bot.delay_hint_ms(action)

    ruleset = replace(Ruleset.preset("italian-four"), match="wins:2")
    seeds = (derive_seed("r", "game", n) for n in range(100))
    people = [Named(x) for x in "ABCD"]
    report = play_match(ruleset, (people[0], people[1]), "m-arena", seeds, 50, waiting=people[2:])
    state = report.state
    assert state.finished and state.session is not None
    won = report.events[-1]
    assert isinstance(won, MatchWon) and won.player is not None
    assert state.session.wins[state.session.people.index(won.player)] == 2
    pairs = {game.bots for game in report.games}
    assert len(pairs) > 1  # the seats changed hands
    assert sum(isinstance(e, SeatsRotated) for e in report.events) >= 1
