"""The clock of a process that has just taken a match over (docs/architecture.md, several
processes): the process that held it may write one last command after the lease changed hands.
The new holder's copy is then one version behind; its time-out loses the race, and it must catch
up and go on, not fail at the same stale version on every tick."""

from __future__ import annotations

from eventstore import open_store
from server.service import GameService
from tests.unit.server.clock import Clock


def test_a_time_out_that_lost_a_race_is_decided_again_on_what_the_store_holds() -> None:
    store = open_store("memory://")
    clock = Clock()
    mine = GameService(store, grace_s=60, clock=clock)
    mine.autopilot.start()
    opened = mine.openings.open_table(
        name="Ann", preset="beginner", bot="steady", move_time_limit_s=1
    )
    match_id = opened["match_id"]
    entry = mine.repo.find(match_id)
    start = entry.version
    # The other process (its own cache of the same store) runs the clock once more: Ann's time
    # runs out there first, and it writes that time-out.
    theirs = GameService(store, grace_s=60, clock=clock)
    theirs.autopilot.start()
    clock.ms += 1_500
    theirs.autopilot.tick()
    written = store.stream_version(f"match-{match_id}")
    assert written > start and entry.version == start  # our copy is behind
    # Our clock: its decision at the old version is refused by the store; the next tick decides
    # again from what the store holds, and the match goes on.
    for _ in range(3):
        mine.autopilot.tick()
        clock.ms += 1_500
    assert entry.version > written, (entry.version, written)
    assert store.stream_version(f"match-{match_id}") == entry.version
