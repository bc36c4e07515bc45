"""`crapette export | import | verify` through click's runner, on a SQLite store in tmp_path."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

import domain
from domain.engine_match import random_match
from eventstore import NewEvent, open_store
from server.cli.records import export_cmd, import_cmd, verify_cmd

GOLDEN = Path(__file__).resolve().parents[2] / "data" / "records"


@pytest.fixture
def store_url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'events.sqlite3'}"
    store = open_store(url)
    for number in range(3):
        events = random_match(random.Random(number), max_games=1, max_actions=60)
        # Matches started on 2025-12-01 + number days (MatchStarted's at_ms is the start).
        started = 1_764_547_200_000 + number * 86_400_000
        payloads = [domain.event_to_payload(event) for event in events]
        payloads[0][1]["at_ms"] = started
        payloads[0][1]["match_id"] = f"m-{number}"
        batch = [NewEvent(kind, data) for kind, data in payloads]
        store.append(f"match-m-{number}", batch, expected_version=0)
    store.close()
    return url


def test_verify_a_golden_exits_0_with_one_line() -> None:
    result = CliRunner().invoke(verify_cmd, [str(GOLDEN / "classic-win-recycle.txt")])
    assert result.exit_code == 0, result.output
    assert result.output.count("\n") == 1 and result.output.startswith("ok: golden-win ")


@pytest.mark.parametrize("suffix", ["json", "txt"])
def test_verify_and_import_a_multi_card_move_written_as_one_action(
    tmp_path: Path, suffix: str
) -> None:
    """Issue 17's report: `crapette verify` refused `T0-T3 3S` ("2D on 4D: colours must
    alternate"); it expands it into its single moves now, and `import` stores those."""
    golden = str(GOLDEN / f"classic-multi-card-move.{suffix}")
    result = CliRunner().invoke(verify_cmd, [golden])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("ok: golden-multi-card ")
    url = f"sqlite:///{tmp_path / 'events.sqlite3'}"
    result = CliRunner().invoke(import_cmd, [golden, "--store", url])
    assert result.exit_code == 0, result.output
    store = open_store(url)
    moved = [e.data for e in store.read("match-golden-multi-card") if e.type == "CardMoved"]
    store.close()
    assert [(m["src"], m["dst"]) for m in moved[-3:]] == [("T0", "T2"), ("T0", "T3"), ("T2", "T3")]


def test_verify_a_tampered_record_exits_1_naming_the_action(tmp_path: Path) -> None:
    record = json.loads((GOLDEN / "classic-calls-resign.json").read_text())
    record["games"][0]["actions"][1]["compulsory"]["to"] = "F3"
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(record))
    result = CliRunner().invoke(verify_cmd, [str(path)])
    assert result.exit_code == 1
    assert "game 1, action 2: crapette: compulsory" in result.output
    assert "R0-F3 AS/0" in result.output and "R0-F0 AS/0" in result.output


@pytest.mark.parametrize("content", ["", "{not json", '{"format": 3}', "[Format", "\x89PNG"])
def test_verify_a_malformed_file_exits_2_without_traceback(tmp_path: Path, content: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    result = CliRunner().invoke(verify_cmd, [str(path)])
    assert result.exit_code == 2
    assert result.output.startswith("error: ") and "Traceback" not in result.output


def test_verify_a_missing_file_exits_2() -> None:
    result = CliRunner().invoke(verify_cmd, ["/nonexistent/record.json"])
    assert result.exit_code == 2 and "cannot read" in result.output


def test_export_json_and_text(store_url: str, tmp_path: Path) -> None:
    out = tmp_path / "m-1.json"
    result = CliRunner().invoke(export_cmd, ["m-1", "--store", store_url, "-o", str(out)])
    assert result.exit_code == 0, result.output
    record = json.loads(out.read_text())
    assert record["format"] == "crapette-record/1" and record["match_id"] == "m-1"
    text = CliRunner().invoke(export_cmd, ["m-1", "--format", "text", "--store", store_url])
    assert text.exit_code == 0 and text.output.startswith('[Format "crapette-record/1"]\n')
    assert CliRunner().invoke(verify_cmd, [str(out)]).exit_code == 0


def test_export_uses_the_crapette_store_variable(store_url: str) -> None:
    result = CliRunner().invoke(export_cmd, ["m-2"], env={"CRAPETTE_STORE": store_url})
    assert result.exit_code == 0 and json.loads(result.output)["match_id"] == "m-2"


def test_export_of_an_unknown_match_exits_1(store_url: str) -> None:
    result = CliRunner().invoke(export_cmd, ["m-404", "--store", store_url])
    assert result.exit_code == 1 and "no match 'm-404'" in result.output


def test_export_from_a_store_that_does_not_exist(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'nothing.sqlite3'}"
    result = CliRunner().invoke(export_cmd, ["m-1", "--store", url])
    assert result.exit_code == 1 and "no event store" in result.output
    assert not (tmp_path / "nothing.sqlite3").exists()


def test_export_all_since_streams_ndjson(store_url: str) -> None:
    every = CliRunner().invoke(export_cmd, ["--all", "--store", store_url])
    assert every.exit_code == 0
    assert [json.loads(line)["match_id"] for line in every.output.splitlines()] == [
        "m-0",
        "m-1",
        "m-2",
    ]
    since = CliRunner().invoke(export_cmd, ["--all", "--since", "2025-12-02", "--store", store_url])
    assert [json.loads(line)["match_id"] for line in since.output.splitlines()] == ["m-1", "m-2"]


def test_export_arguments_are_checked(store_url: str) -> None:
    assert CliRunner().invoke(export_cmd, ["--store", store_url]).exit_code == 2
    assert CliRunner().invoke(export_cmd, ["m-1", "--all", "--store", store_url]).exit_code == 2
    bad = CliRunner().invoke(export_cmd, ["--all", "--since", "yesterday", "--store", store_url])
    assert bad.exit_code == 2 and "not a date" in bad.output


def test_import_then_export_round_trip(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'new' / 'events.sqlite3'}"
    golden = GOLDEN / "finnish-timeout-stalemate.txt"
    first = CliRunner().invoke(import_cmd, [str(golden), "--store", url])
    assert first.exit_code == 0 and first.output.startswith("imported golden-finnish: ")
    again = CliRunner().invoke(import_cmd, [str(golden), "--store", url])
    assert again.exit_code == 1 and "already a match" in again.output
    # The same record under another id is still one match (issue 28): refused, naming it.
    twice = CliRunner().invoke(import_cmd, [str(golden), "--store", url, "--id", "m-copy"])
    assert twice.exit_code == 1 and "already here as match 'golden-finnish'" in twice.output
    other = f"sqlite:///{tmp_path / 'other' / 'events.sqlite3'}"
    copy = CliRunner().invoke(import_cmd, [str(golden), "--store", other, "--id", "m-copy"])
    assert copy.exit_code == 0
    text = CliRunner().invoke(export_cmd, ["m-copy", "--format", "text", "--store", other])
    assert text.output == golden.read_text().replace("golden-finnish", "m-copy")


def test_import_refuses_a_tampered_record_and_stores_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'events.sqlite3'}"
    text = (
        (GOLDEN / "classic-calls-resign.txt").read_text().replace("verdict wrong", "verdict right")
    )
    path = tmp_path / "tampered.txt"
    path.write_text(text)
    result = CliRunner().invoke(import_cmd, [str(path), "--store", url])
    assert result.exit_code == 1 and "action 4" in result.output
    store = open_store(url)
    assert store.list_streams() == []
    store.close()


def _ndjson_with_bad_lines(store_url: str, tmp_path: Path) -> Path:
    """`export --all` output, then a tampered copy of its first record and a line of junk."""
    every = CliRunner().invoke(export_cmd, ["--all", "--store", store_url])
    lines = every.output.splitlines()
    tampered = json.loads(lines[0])
    tampered["match_id"] = "m-tampered"
    tampered["games"][0]["result"]["score"] = [99, 0]
    path = tmp_path / "all.ndjson"
    path.write_text("\n".join([*lines, json.dumps(tampered), "{not json", ""]) + "\n")
    return path


def test_verify_reads_ndjson_and_lists_the_records_that_failed(
    store_url: str, tmp_path: Path
) -> None:
    path = _ndjson_with_bad_lines(store_url, tmp_path)
    result = CliRunner().invoke(verify_cmd, [str(path)])
    assert result.stdout == "3 of 5 record(s) verified\n"
    assert result.exit_code == 2  # the worst failure: a line that is not a record at all
    assert "2 record(s) failed:" in result.stderr
    assert "line 4 (m-tampered): " in result.stderr and "line 5 (not JSON): " in result.stderr


def test_import_reads_ndjson_and_a_second_run_imports_nothing(
    store_url: str, tmp_path: Path
) -> None:
    path = _ndjson_with_bad_lines(store_url, tmp_path)
    url = f"sqlite:///{tmp_path / 'copy.sqlite3'}"
    first = CliRunner().invoke(import_cmd, [str(path), "--store", url])
    assert first.stdout == "3 of 5 record(s) imported\n" and first.exit_code == 2
    assert "line 4 (m-tampered)" in first.stderr
    again = CliRunner().invoke(import_cmd, [str(path), "--store", url])
    assert again.stdout == "0 of 5 record(s) imported\n"
    assert again.stderr.count("already a match") == 3
    with open_store(url) as store:
        assert store.list_streams("match-") == ["match-m-0", "match-m-1", "match-m-2"]
    named = CliRunner().invoke(import_cmd, [str(path), "--store", url, "--id", "m-x"])
    assert named.exit_code == 2 and "--id names one match" in named.output


def test_the_three_hands_golden_imports_and_exports_unchanged(tmp_path: Path) -> None:
    """italian-three-hands (rules.md §10): its named turns (`turn J1`, `turn I0`) and unnamed ones
    come back as they were written."""
    url = f"sqlite:///{tmp_path / 'events.sqlite3'}"
    golden = GOLDEN / "italian-three-hands-resign.txt"
    assert "turn J1" in golden.read_text() and "turn I0" in golden.read_text()
    result = CliRunner().invoke(import_cmd, [str(golden), "--store", url])
    assert result.exit_code == 0, result.output
    text = CliRunner().invoke(
        export_cmd, ["golden-italian-three-hands", "--format", "text", "--store", url]
    )
    assert text.output == golden.read_text()
