"""The tournament stream in the store: read folded, appended at the version decided from, a
conflict decided again (server/tournament_stream.py)."""

from __future__ import annotations

import pytest

from domain import Ruleset
from domain.tournament import CreateTournament, PairRound, RegisterPlayer, TournamentError
from eventstore import ConcurrencyError, open_store
from server.tournament_stream import append_events, execute, read_tournament, tournament_stream


def test_commands_are_stored_and_folded_back() -> None:
    store = open_store("memory://")
    create = CreateTournament("club", "Club night", "swiss", 2, Ruleset.preset("classic"), 1)
    execute(store, "club", create, "c1")
    for number, name in enumerate(["Ann", "Bob", "Cid"]):
        execute(store, "club", RegisterPlayer(name, 2), f"r{number}")
    events, state = execute(store, "club", PairRound(3), "p1")
    assert [e.type for e in events] == ["RoundPaired"]
    stored, folded = read_tournament(store, "club")
    assert folded == state and len(stored) == 5
    assert store.read(tournament_stream("club"))[-1].event_id == "club/p1/0"
    with pytest.raises(TournamentError) as caught:
        execute(store, "club", PairRound(4), "p2")
    assert caught.value.rule == "round running"
    assert read_tournament(store, "nobody") == ([], None)


def test_a_stale_writer_loses_and_execute_decides_again() -> None:
    store = open_store("memory://")
    create = CreateTournament("club", "Club night", "swiss", 2, Ruleset.preset("classic"), 1)
    execute(store, "club", create, "c1")
    stale, state = read_tournament(store, "club")
    execute(store, "club", RegisterPlayer("Ann", 2), "r-ann")
    from domain.tournament import decide

    late = decide(state, RegisterPlayer("Ann", 2))
    with pytest.raises(ConcurrencyError):
        append_events(store, "club", late, len(stale), "r-ann-again")
    with pytest.raises(TournamentError) as caught:  # decided again on the newer state
        execute(store, "club", RegisterPlayer("Ann", 3), "r-ann-again")
    assert caught.value.rule == "name taken"
