"""An appended batch is folded with the states `decide` reached (issue 27), not computed again;
a batch decided on another state is folded as usual."""

from __future__ import annotations

import domain
from eventstore import open_store
from server.adapters.matches import Applied, MatchEntry, MatchRepository
from server.model.tables import TABLE_OPENED, evolve_table

SEED = "ab" * 32


def _setup() -> tuple[MatchRepository, MatchEntry, list[list[Applied]]]:
    published: list[list[Applied]] = []
    repo = MatchRepository(open_store("memory://"), lambda _m, applied: published.append(applied))
    opened = {"match_id": "m-states", "ruleset": {}, "preset": "classic", "at_ms": 0}
    entry = MatchEntry(match_id="m-states", table=evolve_table(None, TABLE_OPENED, opened))
    start = domain.StartMatch("m-states", domain.PRESETS["classic"], ("a", "b"), 0)
    assert repo.append_match(entry, domain.decide(None, start), "start")
    assert repo.append_match(
        entry, domain.decide(entry.state, domain.StartGame(SEED, None, 1)), "g"
    )
    return repo, entry, published


def test_the_batch_is_folded_with_the_states_decide_reached() -> None:
    repo, entry, published = _setup()
    state = entry.state
    assert state is not None and state.game is not None
    action = domain.legal_actions(state, state.game.to_move)[0]
    events = domain.decide(state, domain.Act(action, 2))
    reached = events.states_from(state)
    assert reached is not None
    assert repo.append_match(entry, events, "c1")
    assert entry.state is reached[-1]
    assert [a.state for a in published[-1]] == reached
    assert all(a.state is s for a, s in zip(published[-1], reached, strict=True))


def test_a_plain_list_of_events_is_folded_again() -> None:
    repo, entry, published = _setup()
    state = entry.state
    assert state is not None and state.game is not None
    action = domain.legal_actions(state, state.game.to_move)[0]
    decided = domain.decide(state, domain.Act(action, 2))
    reached = decided.states_from(state)
    assert reached is not None
    assert repo.append_match(entry, list(decided), "c1")
    assert entry.state is not reached[-1]
    assert entry.state == reached[-1]
