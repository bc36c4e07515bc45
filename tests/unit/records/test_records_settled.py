"""Records and docs/spec/rules.md §11: a multi-card move written as one action verifies and imports,
expanded into its single moves as the live engine plays them; named calls survive import and
export unchanged (also for streams written before calls kept their name)."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import pytest

import domain
from domain.engine_match import EngineMatch
from eventstore import open_store
from records.errors import RecordMismatchError, RecordRefusedError
from records.export import export_match, record_from_events
from records.importer import import_record
from records.text import from_text, to_text
from records.verify import verify_record

GOLDEN = Path(__file__).resolve().parents[2] / "data" / "records"
ISSUE_SEED = "d76d4330f1446beab0c11fdecb91ce375bc8fbbcbde5c0994164d8399f767c45"
C1_RULE = "priority: reserve to foundation first"
RANKS = "A23456789TJQK"
ALL = [rank + suit for suit in "SHDC" for rank in RANKS]


def _pack(top: list[str]) -> list[str]:
    """A pack whose reserve top (D[12]) and houses T3 T2 T1 T0 (D[13..16]) are `top`."""
    rest = [code for code in ALL if code not in top]
    return rest[:12] + top + rest[12:]


def _fold(record: dict[str, Any], first: int, count: int) -> dict[str, Any]:
    """`record` with the `count` single moves from action number `first` (1-based) of its first
    game written as the one shortcut they stand for; later call targets renumbered."""
    record = copy.deepcopy(record)
    actions = record["games"][0]["actions"]
    steps = actions[first - 1 : first - 1 + count]
    src, dst = steps[0]["from"], steps[-1]["to"]
    (card,) = [step["card"] for step in steps if (step["from"], step["to"]) == (src, dst)]
    shortcut: dict[str, Any] = {"seat": steps[0]["seat"], "do": "move", "from": src, "to": dst}
    shortcut.update(card=card, ms=steps[0]["ms"])
    faults = [step for step in steps if step.get("fault")]
    if faults:
        shortcut.update(fault=True, rule=faults[-1]["rule"])
    actions[first - 1 : first - 1 + count] = [shortcut]
    for action in actions:
        target = action.get("target")
        if target is not None and target >= first:
            action["target"] = max(first, target - (count - 1))
    return record


def _issue_table() -> EngineMatch:
    """The report of issue 17: lenient; seat 1 turns, T6-T0, T2-T6, then 3S with 2D onto 4D."""
    table = EngineMatch("classic", match_id="m-issue", enforcement="lenient")
    table.deal(seed=ISSUE_SEED)
    for text in ("turn", "T6-T0", "T2-T6", "T0-T3 3S"):
        table.say(1, text)
    return table


def _issue_record() -> dict[str, Any]:
    return _fold(record_from_events(_issue_table().events, public=False), 4, 3)


# --- a multi-card move written as one action --------------------------------------------------


def test_the_reported_record_verifies() -> None:
    record = _issue_record()
    shortcut = record["games"][0]["actions"][3]
    assert (shortcut["from"], shortcut["to"], shortcut["card"]) == ("T0", "T3", "3S/0")
    verified = verify_record(record)
    assert verified.actions == 4
    assert verify_record(from_text(to_text(record))).actions == 4


def test_the_shortcut_is_expanded_exactly_as_the_live_engine_plays_it() -> None:
    live = _issue_table().events
    verified = verify_record(_issue_record())
    assert [event for batch in verified.batches for event in batch] == live
    last = live[-3:]
    assert all(isinstance(e, domain.CardMoved) for e in last)
    moved = [(e.src, e.dst, str(e.card)) for e in cast(list[domain.CardMoved], last)]
    assert moved == [("T0", "T2", "2D/1"), ("T0", "T3", "3S/0"), ("T2", "T3", "2D/1")]


def test_the_golden_multi_card_record_holds_one_shortcut_action() -> None:
    record = json.loads((GOLDEN / "classic-multi-card-move.json").read_text(encoding="utf-8"))
    moves = [a for a in record["games"][0]["actions"] if a["do"] == "move"]
    assert [(a["from"], a["to"], a["card"]) for a in moves][-1] == ("T0", "T3", "3S/0")
    assert verify_record(record).actions == len(record["games"][0]["actions"])


def test_import_stores_the_single_moves_and_export_writes_them_as_actions() -> None:
    store = open_store("memory://")
    import_record(store, _issue_record(), match_id="m-shortcut")
    again = export_match(store, "m-shortcut", public=False)
    moves = [(a["from"], a["to"], a["card"]) for a in again["games"][0]["actions"][3:]]
    assert moves == [("T0", "T2", "2D/1"), ("T0", "T3", "3S/0"), ("T2", "T3", "2D/1")]
    assert verify_record(again).actions == 6


def test_a_shortcut_card_without_its_owner_is_accepted() -> None:
    record = _issue_record()
    record["games"][0]["actions"][3]["card"] = "3S"
    assert verify_record(record).actions == 4


def test_a_shortcut_with_the_wrong_owner_is_a_card_mismatch() -> None:
    record = _issue_record()
    record["games"][0]["actions"][3]["card"] = "3S/1"
    with pytest.raises(RecordMismatchError) as caught:
        verify_record(record)
    assert "card" in caught.value.message and "3S/0" in caught.value.message


def test_a_shortcut_the_houses_cannot_carry_is_refused_with_its_reason() -> None:
    record = _issue_record()
    record["games"][0]["actions"][3]["card"] = "KC"  # not in the sequence on top of T0
    with pytest.raises(RecordRefusedError) as caught:
        verify_record(record)
    assert "action 4" in caught.value.message and "not in the sequence" in caught.value.message


# A call-mode game: seat 0's reserve top AS must go to a foundation (C1), so every move is a
# fault. Seat 0 puts 2D on 3S (T1-T0) and JH on QS/1 (T2-T5), then writes 3S with 2D onto 4D
# (T0-T3 3S) through the emptied T1; seat 1 calls.
PACKS = (_pack(["AS", "4D", "JH", "2D", "3S"]), _pack(["9H", "KH", "KD", "QS", "QC"]))


def _call_record() -> dict[str, Any]:
    table = EngineMatch("classic", match_id="m-call")
    table.deal(packs=PACKS)
    table.say(0, "T1-T0")
    table.say(0, "T2-T5")
    table.say(0, "T0-T3 3S")
    table.say(1, "crapette")
    return _fold(record_from_events(table.events, public=False), 3, 3)


def test_a_call_reaches_the_last_step_of_a_shortcut_and_names_the_shortcut() -> None:
    record = _call_record()
    shortcut, call = record["games"][0]["actions"][2:4]
    assert (shortcut["fault"], shortcut["rule"]) == (True, C1_RULE)
    assert call["verdict"] == "right" and call["target"] == 3
    assert call["voided"] == ["move T1-T3 2D/0"]
    assert verify_record(record).actions == 4


def test_a_shortcut_whose_steps_broke_priority_must_say_so() -> None:
    record = _call_record()
    del record["games"][0]["actions"][2]["fault"]
    del record["games"][0]["actions"][2]["rule"]
    with pytest.raises(RecordMismatchError) as caught:
        verify_record(record)
    assert "action 3" in caught.value.message and "fault" in caught.value.message


def test_a_call_on_a_shortcut_must_target_the_shortcut() -> None:
    record = _call_record()
    record["games"][0]["actions"][3]["target"] = 5  # the step's number once expanded
    with pytest.raises(RecordMismatchError) as caught:
        verify_record(record)
    assert "target" in caught.value.message


# --- named calls ------------------------------------------------------------------------------


def _named_table(name: str) -> EngineMatch:
    """Seat 0 breaks C1 (AS on its reserve top) with T1-T0; seat 1 calls, naming `name`."""
    table = EngineMatch("classic", match_id="m-named")
    table.deal(packs=PACKS)
    table.say(0, "T1-T0")
    table.say(1, f"crapette {name}")
    return table


@pytest.mark.parametrize("name", ["R0-F0", "R0-F5", "T3-F0"])
def test_a_named_call_survives_import_and_export(name: str) -> None:
    """R0-F0 is the default remedy (the case the export lost), R0-F5 another move of the broken
    level, T3-F0 a move outside it (the default is played)."""
    record = record_from_events(_named_table(name).events, public=False)
    call = record["games"][0]["actions"][1]
    assert call["move"] == name and call["compulsory"]["from"] == "R0"
    store = open_store("memory://")
    import_record(store, record, match_id="m-named")
    assert export_match(store, "m-named", public=False) == record


def test_a_wrong_call_keeps_its_named_move() -> None:
    table = EngineMatch("classic", match_id="m-wrong")
    table.deal(packs=PACKS)
    table.say(0, "R0-F0")  # no fault
    table.say(1, "crapette R0-F1")
    record = record_from_events(table.events, public=False)
    call = record["games"][0]["actions"][1]
    assert call["verdict"] == "wrong" and call["move"] == "R0-F1"
    store = open_store("memory://")
    import_record(store, record, match_id="m-wrong")
    assert export_match(store, "m-wrong", public=False) == record


def test_a_stream_written_before_calls_kept_their_name_still_exports() -> None:
    """Old streams hold no `named`: a call whose name changed the remedy is recovered from the
    move played; one that named the default cannot be told from an unnamed call."""
    for name, written in (("R0-F5", "R0-F5"), ("R0-F0", None)):
        events = [
            replace(e, named=None) if isinstance(e, domain.CrapetteCalled) else e
            for e in _named_table(name).events
        ]
        call = record_from_events(events, public=False)["games"][0]["actions"][1]
        assert call.get("move") == written
