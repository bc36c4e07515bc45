"""The text form: PGN-like, lines under 80 characters, and lossless both ways."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from records.errors import RecordFormatError
from records.schema import dump_record, load_record
from records.text import from_text, to_text

PACK = [r + s for s in "SHDC" for r in "A23456789TJQK"]


def _record() -> dict[str, Any]:
    """A hand-made record that uses every decision, long strings and awkward names."""
    return {
        "format": "crapette-record/1",
        "match_id": "m-1f3a",
        "preset": "classic",
        "ruleset": {"reserve_size": 13, "move_time_limit_s": None, "match": "points:300"},
        "players": ['Ann "the bank" [0]', "Bjørn N"],
        "started_at_ms": 5,
        "result": {"finished": True, "winner": 1, "totals": [0, 57]},
        "games": [
            {
                "index": 0,
                "started_at_ms": 6,
                "deal": {"packs": [PACK, PACK[::-1]]},
                "first_player": 0,
                "first_player_reason": "a reason that is far too long to fit on one line " * 3,
                "actions": [
                    {
                        "seat": 0,
                        "do": "move",
                        "from": "R0",
                        "to": "F0",
                        "card": "AS/0",
                        "ms": 3,
                        "fault": True,
                        "rule": "priority: " + "r" * 120,
                    },
                    {
                        "seat": 1,
                        "do": "call",
                        "move": "R0-F1",
                        "ms": 5,
                        "rule": "priority",
                        "verdict": "right",
                        "target": 1,
                        "voided": ["move R0-F0 AS/0", "turn-end"],
                        "compulsory": {"from": "R0", "to": "F1", "card": "AS/0"},
                        "discarded": {"card": "7C/0", "reason": "crapette"},
                        "turn_end": [{"next": 1, "reason": "crapette"}],
                    },
                    {"seat": 1, "do": "turn", "card": "7C/1", "ms": 5, "recycled": 3},
                    {
                        "seat": 0,
                        "do": "call",
                        "ms": 6,
                        "verdict": "wrong",
                        "penalty": True,
                        "target": 3,
                        "voided": [],
                        "turn_end": [],
                    },
                    {
                        "seat": 1,
                        "do": "discard",
                        "card": "7C/1",
                        "ms": 5,
                        "turn_end": [
                            {"next": 0, "reason": "d" * 90},
                            {"next": 1, "reason": "wrong calls"},
                        ],
                    },
                    {"seat": 0, "do": "time-out", "ms": 70000, "fault": False},
                    {"seat": 0, "do": "resign", "ms": 70007},
                ],
                "result": {
                    "outcome": "resign",
                    "winner": 1,
                    "reason": "seat 0 resigned",
                    "score": [0, 57],
                    "penalties": None,
                },
            }
        ],
    }


def test_round_trip_of_every_decision() -> None:
    record = _record()
    text = to_text(record)
    assert dump_record(from_text(text)) == dump_record(load_record(record))
    assert to_text(from_text(text)) == text


@pytest.mark.parametrize("name", ["\u00e9\u4e2d", 'a "b" [c] \\d', "\u05e9\u05dc\u05d5\u05dd"])
def test_names_with_odd_characters_stay_on_their_line(name: str) -> None:
    record = _record()
    record["players"] = [name, name * (40 // len(name))]
    text = to_text(record)
    assert max(len(line) for line in text.split("\n")) < 80
    assert from_text(text)["players"] == [name, name * (40 // len(name))]


@pytest.mark.parametrize(
    ("name", "rule"),
    [
        ("a\u2028b", "control character (U+2028 LINE SEPARATOR)"),
        ("x\x85y", "control character (U+0085)"),
        ("tab\there", "control character (U+0009 TAB)"),
        ("\u202eAnn", "bidirectional control (U+202E RIGHT-TO-LEFT OVERRIDE)"),
        ("An\u200bn", "invisible character (U+200B ZERO WIDTH SPACE)"),
        ("x" * 41, "at most 40 characters"),
    ],
)
def test_a_record_names_people_as_the_lobby_does(name: str, rule: str) -> None:
    """Issue 28: a record's names follow the lobby's rules, in the text form as in JSON."""
    record = _record()
    record["players"] = ["Ann", name]
    with pytest.raises(RecordFormatError, match=re.escape(rule)):
        from_text(to_text(record))
    with pytest.raises(RecordFormatError, match=re.escape(rule)):
        load_record(record)


def test_lines_are_shorter_than_80_characters() -> None:
    lines = to_text(_record()).splitlines()
    assert max(len(line) for line in lines) < 80
    assert lines[0] == '[Format "crapette-record/1"]'


def test_turns_are_numbered() -> None:
    text = to_text(_record())
    assert "\n1. 0 R0-F0 AS/0 @3\n" in text
    assert "\n   1 crapette R0-F1 @5\n" in text
    assert "\n2. 1 turn 7C/1 @5\n" in text  # the right call passed the turn to seat 1
    assert "\n3. 0 time-out @70000\n" in text


def test_live_record_without_seed_round_trips() -> None:
    record = _record()
    record["live"] = True
    record["result"] = {"finished": False, "winner": None, "totals": [0, 0]}
    game = record["games"][0]
    game["deal"] = {"algorithm": "sha256-fy/1", "commitment": "ab" * 32}
    game["result"] = None
    text = to_text(record)
    assert "[Live" in text and "[Seed" not in text and "[Pack0" not in text
    assert dump_record(from_text(text)) == dump_record(load_record(record))


def test_comments_and_blank_lines_are_ignored() -> None:
    text = to_text(_record())
    noisy = "% exported by hand\n\n" + text.replace("\n\n", "\n\n% a comment\n\n")
    assert from_text(noisy) == from_text(text)


@pytest.mark.parametrize(
    ("mangle", "message"),
    [
        (lambda t: t.replace('[Format "crapette-record/1"]', '[Format "pgn"]'), "not crapette"),
        (lambda t: t.replace("[Match", "[Mtch"), "has no [Match"),
        (lambda t: t.replace('[Seat0 "', "[Seat0 "), "header line"),
        (lambda t: t.replace("@3", "3"), "action line"),
        (lambda t: t.replace("verdict right", "verdict maybe"), "verdict"),
        (lambda t: t.replace("      recycled 3", "      shuffled 3"), "unknown decision"),
        (lambda t: t.replace("R0-F0 AS/0 @3", "R0-F0 ZZ @3"), "not a card"),
        (lambda t: t.replace("[Totals", '[Totals "x"]\n[Totals'), "Totals"),
        (lambda t: "1. 0 turn @5\n" + t, "headers"),
        (lambda t: t.replace("[Reason", '[Excuse "x"]\n[Reason'), "unknown header tag"),
        (lambda t: t.replace("1. 0 R0-F0", "1. 0 R0-F0 AS/0"), "after the card"),
        (lambda t: t.replace("[GameStarted", "[GameBegun"), "[GameStarted"),
    ],
)
def test_malformed_text_gets_a_clear_error(mangle: Any, message: str) -> None:
    text = mangle(to_text(_record()))
    with pytest.raises(RecordFormatError) as caught:
        from_text(text)
    assert message.lower() in caught.value.message.lower()


def test_option_names_cannot_look_like_numbers() -> None:
    record = copy.deepcopy(_record())
    record["ruleset"]["match"] = "300"
    with pytest.raises(RecordFormatError, match="not a name"):
        load_record(record)
