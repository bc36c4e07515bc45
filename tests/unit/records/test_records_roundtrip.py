"""Self-played matches (random legal play through the domain, calls and faults included):
export → text → JSON is lossless, the record verifies, and import → export gives it back."""

from __future__ import annotations

import functools
import random
from typing import Any

import pytest

import domain
from domain import Act
from domain.engine_match import random_match
from eventstore import NewEvent, open_store
from records.export import export_match, record_from_events
from records.importer import import_record
from records.schema import dump_record, load_record
from records.text import from_text, to_text
from records.verify import verify_record
from tests.unit.records.round_trip import round_trip

# italian-three-hands: random play names hands (`turn J1`) as often as it leaves the default.
PRESETS = (
    "classic",
    "g4a",
    "danish",
    "italian",
    "finnish",
    "french",
    "beginner",
    "italian-three-hands",
)
MATCHES = 36


@functools.cache
def _match(number: int) -> tuple[Any, ...]:
    """Self-played match `number` (made when a test first needs it, not at collection)."""
    rng = random.Random(number)
    preset = PRESETS[number % len(PRESETS)]
    # Short games keep this fast; a game cut short ends by resignation. Half the calls name a
    # move: the default remedy, another of its level, or one outside it.
    return tuple(
        random_match(rng, preset, max_games=2, max_actions=120, call_rate=0.3, name_rate=0.5)
    )


@pytest.mark.parametrize("number", range(MATCHES), ids=lambda n: f"{n}-{PRESETS[n % len(PRESETS)]}")
def test_text_and_json_round_trip(number: int) -> None:
    round_trip(list(_match(number)))


def test_the_selfplay_exercises_the_decisions() -> None:
    """The round trip above is only worth something if the matches hold calls and faults."""
    keys: set[str] = set()
    for number in range(MATCHES):
        for game in record_from_events(_match(number))["games"]:
            for action in game["actions"]:
                keys.update(action)
                keys.update(f"verdict {action['verdict']}" for _ in [0] if "verdict" in action)
    assert {"fault", "verdict right", "verdict wrong", "voided", "compulsory", "turn_end"} <= keys
    assert "move" in keys  # calls that name a move
    assert "hand" in keys  # turns that name a hand (three hands, docs/spec/rules.md §10)


@pytest.mark.slow  # over 30 s on a loaded 2-core machine: out of the quick loop
def test_import_then_export_keeps_every_named_call() -> None:
    """The defect of issue 17: a named call whose move was the default remedy lost its name."""
    store = open_store("memory://")
    kinds: set[str] = set()
    for number in range(MATCHES):
        events = list(_match(number))
        kinds |= _named_call_kinds(events)
        record = record_from_events(events)
        import_record(store, record, match_id=f"m-named-{number}")
        again = export_match(store, f"m-named-{number}")
        assert again == dump_record(load_record({**record, "match_id": f"m-named-{number}"}))
    assert kinds >= {"the default", "another of the level", "ignored", "wrong"}


def _named_call_kinds(events: list[Any]) -> set[str]:
    """What the named calls of a match named, told apart by asking the engine what the same call
    without a name would have played."""
    kinds: set[str] = set()
    state = None
    for event in events:
        if isinstance(event, domain.CrapetteCalled) and event.named is not None:
            if event.verdict == "wrong":
                kinds.add("wrong")
            else:
                call = domain.parse_action(f"crapette {event.named}", event.caller)
                named = _compulsory(domain.decide(state, Act(call, 0)))
                default = _compulsory(domain.decide(state, Act(domain.Call(event.caller), 0)))
                asked = event.named.split()[0]
                if named == asked == default:
                    kinds.add("the default")
                elif named == asked:
                    kinds.add("another of the level")
                else:
                    kinds.add("ignored")
        state = domain.evolve(state, event)
    return kinds


def _compulsory(events: list[Any]) -> str | None:
    played = [e for e in events if isinstance(e, domain.CompulsoryMovePlayed)]
    return f"{played[0].src}-{played[0].dst}" if played else None


def test_export_of_a_live_match_hides_the_running_deal() -> None:
    rng = random.Random(99)
    events = random_match(rng, "classic", max_games=1, max_actions=30)
    running = [e for e in events if not isinstance(e, (domain.GameResigned, domain.MatchWon))]
    record = record_from_events(running)
    game = record["games"][-1]
    assert record["live"] is True and game["result"] is None
    assert set(game["deal"]) == {"algorithm", "commitment"}
    assert isinstance(events[1], domain.GameStarted) and events[1].seed is not None
    assert game["deal"]["commitment"] == domain.deal.commitment(events[1].seed)
    hidden = {card.code for pack in domain.deal.packs_from_seed(events[1].seed) for card in pack}
    assert hidden  # the packs exist, and none of the record's text gives them away:
    assert "Pack0" not in to_text(record) and events[1].seed not in to_text(record)
    full = record_from_events(running, public=False)
    assert full["games"][-1]["deal"]["seed"] == events[1].seed


def test_export_reads_the_store_as_the_server_writes_it() -> None:
    store = open_store("memory://")
    events = _match(0)
    store.append(
        "match-m-test",
        [NewEvent(*domain.event_to_payload(event)) for event in events],
        expected_version=0,
    )
    assert export_match(store, "m-test") == record_from_events(events)


@pytest.mark.parametrize(
    ("preset", "bots"),
    [
        ("classic", ("steady", "random")),
        ("danish", ("steady", "steady")),
        ("italian-three-hands", ("random", "sharp")),
    ],
)
def test_bot_matches_round_trip(preset: str, bots: tuple[str, str]) -> None:
    """Matches the bots play (domain.bots' arena, as `crapette selfplay` does) export and verify."""
    from domain.bots import make_bot
    from domain.bots.arena import derive_seed, play_match

    players = (make_bot(bots[0], seed=1), make_bot(bots[1], seed=2))
    seeds = (derive_seed("records", preset, n) for n in range(10))
    report = play_match(domain.Ruleset.preset(preset), players, "m-bots", seeds, max_games=1)
    record = record_from_events(report.events)
    assert dump_record(from_text(to_text(record))) == record
    verified = verify_record(record)
    assert [e for batch in verified.batches for e in batch] == report.events


def test_export_of_a_live_match_hides_the_running_games_faults() -> None:
    """Spotting a fault is the opponent's part of the game: a live record must not tell."""
    for number in range(200):
        events = random_match(random.Random(number), "classic", max_games=1, max_actions=60)
        running = [e for e in events if not isinstance(e, (domain.GameResigned, domain.MatchWon))]
        full = record_from_events(running, public=False)
        if any(entry.get("fault") for entry in full["games"][-1]["actions"]):
            break
    else:
        raise AssertionError("no random game of 60 actions had a fault to hide")
    public = record_from_events(running)
    assert public["live"] is True
    plays = [entry for entry in public["games"][-1]["actions"] if entry["do"] != "call"]
    assert plays and not any("fault" in entry or "rule" in entry for entry in plays)
    assert from_text(to_text(public)) == public
