"""Golden records: each verifies with the engine; tampered copies are refused at the right place;
malformed files get a clear error, never a traceback."""

from __future__ import annotations

import contextlib
import copy
import json
from pathlib import Path
from typing import Any

import pytest

from records.errors import (
    RecordFormatError,
    RecordIncompleteError,
    RecordMismatchError,
    RecordRefusedError,
)
from records.importer import parse_record_file
from records.schema import dump_record
from records.text import from_text, to_text
from records.verify import verify_record

GOLDEN = Path(__file__).resolve().parents[2] / "data" / "records"
NAMES = sorted(path.stem for path in GOLDEN.glob("*.json"))
PRESETS = ("classic", "g4a", "danish", "italian", "finnish", "french", "beginner")


def _golden(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
    return loaded


def _actions(record: dict[str, Any]) -> list[dict[str, Any]]:
    actions: list[dict[str, Any]] = record["games"][0]["actions"]
    return actions


def test_the_goldens_are_there() -> None:
    assert len(NAMES) >= 8
    assert {_golden(name)["preset"] for name in NAMES} >= set(PRESETS)


@pytest.mark.parametrize("name", NAMES)
def test_every_golden_verifies(name: str) -> None:
    record = _golden(name)
    verified = verify_record(record)
    assert verified.summary.startswith(f"ok: {record['match_id']} ")
    assert verified.actions == sum(len(game["actions"]) for game in record["games"])


@pytest.mark.parametrize("name", NAMES)
def test_every_golden_text_is_its_json(name: str) -> None:
    record = _golden(name)
    text = (GOLDEN / f"{name}.txt").read_text(encoding="utf-8")
    assert dump_record(from_text(text)) == record
    assert to_text(record) == text
    every_game = sum(len(game["actions"]) for game in record["games"])
    assert verify_record(parse_record_file(text)).actions == every_game


def test_the_goldens_cover_the_required_stories() -> None:
    records = [_golden(name) for name in NAMES]
    results = [game["result"] for record in records for game in record["games"]]
    actions = [a for record in records for game in record["games"] for a in game["actions"]]
    assert {r["outcome"] for r in results} == {"win", "stalemate", "resign"}
    reasons = {r["reason"] for r in results if r["outcome"] == "stalemate"}
    assert "agreed" in reasons and len(reasons) == 2  # one agreed, one by the rules
    assert {a.get("verdict") for a in actions} >= {"right", "wrong"}
    assert any("recycled" in a for a in actions)
    assert any(a["do"] == "time-out" for a in actions)
    assert any("seed" not in record["games"][0]["deal"] for record in records)  # explicit packs


# -- tampering -----------------------------------------------------------------------------------


def _refused(record: dict[str, Any]) -> RecordMismatchError:
    with pytest.raises(RecordMismatchError) as caught:
        verify_record(record)
    return caught.value


def test_a_changed_card_is_named() -> None:
    record = _golden("classic-win-recycle")
    _actions(record)[4]["card"] = "5D/0"  # action 5 played 5S/0
    error = _refused(record)
    assert (error.game, error.action) == (1, 5)
    assert "card" in error.what
    assert "5D/0" in error.message and "5S/0" in error.message


def test_a_card_without_its_owner_still_verifies_but_not_a_wrong_one() -> None:
    record = _golden("classic-win-recycle")
    _actions(record)[4]["card"] = "5S"
    verify_record(record)
    _actions(record)[4]["card"] = "5H"
    assert _refused(record).action == 5


def test_a_removed_action_is_named() -> None:
    record = _golden("classic-win-recycle")
    actions = _actions(record)
    assert actions[18]["do"] == "discard"  # action 19 ends seat 0's first turn
    del actions[18]
    error = _refused(record)
    assert isinstance(error, RecordRefusedError)
    assert (error.game, error.action) == (1, 19)  # seat 1 acts when it is not its turn
    assert "not your turn" in error.message


def test_a_removed_move_breaks_the_next_card() -> None:
    record = _golden("classic-win-recycle")
    del _actions(record)[1]  # 2S never reaches the foundation; 3S is refused there
    error = _refused(record)
    assert error.action == 2


def test_a_changed_score_is_named() -> None:
    record = _golden("classic-win-recycle")
    record["games"][0]["result"]["score"] = [93, 0]
    error = _refused(record)
    assert error.what == "score"
    assert error.action == len(_actions(record))  # the action that ended the game
    assert "93 0" in error.message and "83 0" in error.message


def test_changed_match_totals_are_named() -> None:
    record = _golden("classic-calls-resign")
    record["result"]["totals"] = [0, 90]
    error = _refused(record)
    assert error.what == "match totals"


def test_a_wrong_seed_is_named() -> None:
    record = _golden("finnish-timeout-stalemate")
    deal = record["games"][0]["deal"]
    deal["seed"] = deal["seed"][:-1] + ("0" if deal["seed"][-1] != "0" else "1")
    error = _refused(record)
    assert (error.game, error.action) == (1, None)
    assert "commitment" in error.message


def test_packs_that_do_not_come_from_the_seed() -> None:
    record = _golden("g4a-resign")
    pack = record["games"][0]["deal"]["packs"][1]
    pack[3], pack[4] = pack[4], pack[3]
    error = _refused(record)
    assert "pack 1" in error.message and "card 4" in error.message


def test_a_changed_first_player() -> None:
    record = _golden("italian-resign")
    record["games"][0]["first_player"] = 1
    assert "first player" in _refused(record).message


def test_a_hidden_fault_is_found() -> None:
    record = _golden("classic-calls-resign")
    first = _actions(record)[0]
    del first["fault"], first["rule"]
    error = _refused(record)
    assert error.action == 1 and "fault" in error.what


def test_a_changed_verdict_is_named() -> None:
    record = _golden("classic-calls-resign")
    _actions(record)[3]["verdict"] = "right"
    error = _refused(record)
    assert error.action == 4 and "verdict" in error.what


def test_a_removed_compulsory_move_is_named() -> None:
    record = _golden("classic-calls-resign")
    del _actions(record)[1]["compulsory"]
    error = _refused(record)
    assert error.action == 2 and "compulsory" in error.what


def test_an_early_time_out_is_refused() -> None:
    record = _golden("finnish-timeout-stalemate")
    timeout = next(i for i, a in enumerate(_actions(record)) if a["do"] == "time-out")
    _actions(record)[timeout]["ms"] -= 1000
    error = _refused(record)
    assert isinstance(error, RecordRefusedError) and error.action == timeout + 1
    assert "time" in error.message


def test_a_tampered_text_record_is_refused_too() -> None:
    text = (GOLDEN / "classic-win-recycle.txt").read_text(encoding="utf-8")
    text = text.replace("   0 R0-F0 5S/0 @3500", "   0 R0-F0 5D/0 @3500")
    with pytest.raises(RecordMismatchError) as caught:
        verify_record(from_text(text))
    assert caught.value.action == 5


def test_a_live_export_cannot_be_verified() -> None:
    record = _golden("g4a-resign")
    record["live"] = True
    record["games"][0]["deal"] = {"algorithm": "sha256-fy/1", "commitment": "00" * 32}
    with pytest.raises(RecordIncompleteError, match="still secret"):
        verify_record(record)


# -- malformed files -----------------------------------------------------------------------------


def _valid_text() -> str:
    return (GOLDEN / "classic-calls-resign.json").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "not a match record"),
        ("hello", "not a match record"),
        ("{", "not valid JSON"),
        ('{"format": "crapette-record/1"', "not valid JSON"),
        ("[1, 2, 3]", "header"),
        ("{}", "format"),
        ('{"format": "pgn"}', "not a crapette-record/1"),
        ("\x00\x01\x02", "not a match record"),
        ("[" * 100_000, "header"),
        ("{" * 100_000, "JSON"),
    ],
)
def test_malformed_files_get_clear_errors(text: str, message: str) -> None:
    with pytest.raises(RecordFormatError) as caught:
        verify_record(parse_record_file(text))
    assert message.lower() in caught.value.message.lower()


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        (("players",), ["only one"], "players"),
        (("games", 0, "actions", 0, "card"), "11S", "card"),
        (("games", 0, "actions", 0, "do"), "shuffle", "do"),
        (("games", 0, "actions", 0, "seat"), 2, "seat"),
        (("games", 0, "actions", 0, "ms"), "soon", "ms"),
        (("games", 0, "deal", "packs"), [["AS"] * 52, []], "packs"),
        (("games", 0, "index"), 3, "index"),
        (("ruleset", "reserve_size"), 14, "reserve_size"),
        (("ruleset", "colour"), "blue", "colour"),
        (("games", 0, "actions", 1, "move"), "R9-F0", "move"),
    ],
)
def test_malformed_fields_are_named(path: tuple[Any, ...], value: Any, field: str) -> None:
    record = json.loads(_valid_text())
    target = record
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(RecordFormatError) as caught:
        verify_record(copy.deepcopy(record))
    assert field in caught.value.message


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key path of a JSON value (the value itself included)."""
    paths = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            paths += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            paths += _paths(item, (*prefix, index))
    return paths


def test_random_corruption_never_escapes_as_a_traceback() -> None:
    """Whatever a file holds, verifying it ends in the record's own errors (or success)."""
    import random

    rng = random.Random(7)
    junk: list[Any] = [None, -1, 0, 1, 2, 10**30, "", "R0", "AS", "x" * 300, [], {}, True, 1.5]
    original = _golden("classic-calls-resign")
    paths = _paths(original)[1:]
    outcomes = {"ok": 0, "format": 0, "mismatch": 0}
    for _ in range(400):
        record = copy.deepcopy(original)
        for _ in range(rng.randint(1, 3)):
            path = rng.choice(paths)
            target = record
            try:
                for key in path[:-1]:
                    target = target[key]
                if rng.random() < 0.2 and isinstance(target, dict):
                    target.pop(path[-1], None)
                else:
                    target[path[-1]] = rng.choice(junk)
            except (KeyError, IndexError, TypeError):
                continue  # an earlier corruption removed this path
        try:
            verify_record(record)
            outcomes["ok"] += 1
        except RecordFormatError:
            outcomes["format"] += 1
        except RecordMismatchError:
            outcomes["mismatch"] += 1
    assert outcomes["format"] > 100 and outcomes["mismatch"] >= 1


def test_random_corruption_of_the_text_form_never_escapes() -> None:
    import random

    rng = random.Random(11)
    text = (GOLDEN / "classic-calls-resign.txt").read_text(encoding="utf-8")
    alphabet = ' "[]\\&@.-/0123456789ASKHDCFRTWXfault\n\t%{'
    for _ in range(400):
        chars = list(text)
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(chars))
            if rng.random() < 0.3:
                del chars[at]
            else:
                chars[at] = rng.choice(alphabet)
        with contextlib.suppress(RecordFormatError, RecordMismatchError):
            verify_record(parse_record_file("".join(chars)))
