"""Records of a rotation session (docs/spec/records.md §3, docs/spec/rules.md §10): every game
with the two people who played it, the seat changes, the queue, and everyone's totals."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

import domain
from domain.engine_match import EngineMatch
from eventstore import open_store
from records.errors import RecordFormatError, RecordMismatchError, RecordRefusedError
from records.export import export_match, record_from_events
from records.importer import import_record
from records.schema import dump_record, load_record
from records.text import from_text, to_text
from records.verify import verify_record

GOLDEN = Path(__file__).resolve().parents[2] / "data" / "records" / "italian-four-session.json"


def golden() -> dict[str, Any]:
    record: dict[str, Any] = json.loads(GOLDEN.read_text(encoding="utf-8"))
    return record


def test_the_golden_session_verifies_and_names_its_winner() -> None:
    record = golden()
    verified = verify_record(record)
    assert "Ann 182, Bob 0, Cid 93, Dan 0, Ann wins the match" in verified.summary
    assert [g["players"] for g in record["games"]] == [
        ["Ann", "Bob"],
        ["Cid", "Bob"],
        ["Cid", "Bob"],
        ["Ann", "Bob"],
    ]
    kinds = [type(e).__name__ for batch in verified.batches for e in batch]
    assert kinds.count("SeatsRotated") == 2 and kinds.count("PlayerQueued") == 2
    assert kinds.count("PlayerLeftQueue") == 1 and kinds[-1] == "MatchWon"


def test_import_then_export_gives_the_session_back() -> None:
    store = open_store("memory://")
    record = golden()
    import_record(store, record, match_id="m-rot-1")
    again = export_match(store, "m-rot-1")
    assert again == dump_record(load_record({**record, "match_id": "m-rot-1"}))
    assert from_text(to_text(again)) == load_record(again)


@pytest.mark.parametrize(
    ("change", "what"),
    [
        (lambda r: r["games"][1]["players"].reverse(), "players"),
        (lambda r: r["games"][0].update(seat_change=None), "seat change"),
        (
            lambda r: r["games"][1].update(
                seat_change={"left": "Bob", "entered": "Ann", "seat": 1}
            ),
            "seat change",
        ),
        (lambda r: r["result"]["people"][2].update(total=94), "match people"),
        (lambda r: r["result"].update(player="Cid"), "match player"),
    ],
)
def test_a_wrong_decision_of_the_session_is_named(change: Any, what: str) -> None:
    record = golden()
    change(record)
    with pytest.raises(RecordMismatchError) as caught:
        verify_record(record)
    assert what in str(caught.value)


def test_a_queue_entry_the_rules_refuse_or_that_has_no_place() -> None:
    record = golden()
    record["queue"][1]["name"] = "Bob"  # Bob sits already: no second Bob
    with pytest.raises(RecordRefusedError, match="already a player"):
        verify_record(record)
    record = golden()
    record["queue"][2]["after"] = 99
    with pytest.raises(RecordFormatError, match="does not hold"):
        verify_record(record)
    record = golden()
    record["queue"][0]["do"] = "sit"
    with pytest.raises(RecordFormatError):
        verify_record(record)


def test_a_two_seat_record_has_none_of_the_session_keys() -> None:
    table = EngineMatch("italian")
    table.deal(seed="00" * 32)
    table.act(domain.Resign(0))
    record = record_from_events(table.events)
    assert "queue" not in record and "rotation" not in record["ruleset"]
    assert "players" not in record["games"][0] and "people" not in record["result"]


def test_random_sessions_round_trip() -> None:
    """Random play over several games, people joining and leaving, both modes."""
    rng = random.Random(17)
    for number in range(6):
        mode = ("winner_out", "loser_out")[number % 2]
        table = EngineMatch("italian", match_id=f"m-r{number}", rotation=mode, match="points:200")
        for name in ("Cid", "Dan")[: 1 + number % 2]:
            table.join(name)
        for _ in range(4):
            if table.state.finished:
                break
            table.deal(seed=f"{rng.getrandbits(256):064x}")
            for _ in range(rng.randrange(5, 40)):
                if table.game.over:
                    break
                seat = table.game.to_move
                table.act(rng.choice(domain.legal_actions(table.state, seat)))
            if not table.game.over:
                if rng.random() < 0.3:
                    table.act(domain.OfferDraw(0))
                    table.act(domain.AcceptDraw(1))
                else:
                    table.act(domain.Resign(rng.randrange(2)))
        record = record_from_events(table.events)
        text = to_text(record)
        assert max(len(line) for line in text.splitlines()) < 80
        assert dump_record(from_text(text)) == record
        verified = verify_record(copy.deepcopy(record))
        assert [e for batch in verified.batches for e in batch] == table.events
