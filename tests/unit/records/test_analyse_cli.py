"""`crapette analyse` and `crapette verify --analysis` through click's runner (server/cli/
analyse.py, docs/records.md § How well it was played), on small generated records; the evaluator
is the stand-in of judge_fake.py where a test is about the command, not the evaluator."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from domain.engine_match import random_match
from records.export import record_from_events
from server.cli.analyse import analyse_cmd
from server.cli.records import verify_cmd
from server.readmodels import judge
from tests.unit.judge_fake import CardCount

GOLDEN = Path(__file__).resolve().parents[2] / "data" / "records"


@pytest.fixture
def record_file(tmp_path: Path) -> Path:
    """A short call-mode game of random play where nobody calls (so its faults are missed)."""
    events = random_match(random.Random(3), max_games=1, max_actions=60, call_rate=0.0)
    path = tmp_path / "match.json"
    path.write_text(json.dumps(record_from_events(events)))
    return path


def test_analyse_json_is_the_judge_s_answer(fake: CardCount, record_file: Path) -> None:
    result = CliRunner().invoke(
        analyse_cmd, [str(record_file), "--json", "--depth", "quick", "--seed", "3"]
    )
    assert result.exit_code == 0, result.output + result.stderr
    assert result.stderr == ""  # no progress bar off a terminal
    body: dict[str, Any] = json.loads(result.stdout)
    record = json.loads(record_file.read_text())
    fake.calls.clear()
    assert body == judge.analyse_record(record, depth="quick", seed=3)
    [game] = body["games"]
    assert body["depth"] == "quick" and body["seed"] == 3
    assert len(game["decisions"]) > 30 and game["missed_calls"]
    assert set(game["seats"][0]) == {"accuracy", "counts", "counted"}
    assert set(body["match"]["seats"][1]) == {"accuracy", "counts", "counted"}


def test_analyse_text_lists_the_accuracies_and_the_mistakes(
    fake: CardCount, record_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake.spread, fake.checked_drop = 0.4, 0.4  # the search and the playouts: blunders
    result = CliRunner().invoke(analyse_cmd, [str(record_file), "--depth", "quick"])
    assert result.exit_code == 0, result.output + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("ok: m-test (classic), Ann ")
    assert lines[1] == "judgements (depth quick, seed 0):"
    assert lines[2].startswith("game 1: Ann accuracy ")
    blunders = [line for line in lines if ", a blunder (win chance " in line]
    assert blunders and all("; best " in line for line in blunders)
    assert all("; checked on 4 deals: best wins " in line for line in blunders)
    assert any("missed a call on" in line for line in lines)
    assert lines[-1].startswith("match: Ann accuracy ")


def test_analyse_reads_the_text_form_and_refuses_what_is_no_record(
    fake: CardCount, tmp_path: Path
) -> None:
    runner = CliRunner()
    text = runner.invoke(analyse_cmd, [str(GOLDEN / "classic-calls-resign.txt"), "--json"])
    assert text.exit_code == 0, text.stderr
    assert json.loads(text.stdout)["games"][0]["decisions"]
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    result = runner.invoke(analyse_cmd, [str(bad)])
    assert result.exit_code == 2 and result.stderr.startswith("error: not valid JSON")
    tampered = json.loads((GOLDEN / "classic-calls-resign.json").read_text())
    tampered["games"][0]["actions"][1]["compulsory"]["to"] = "F3"
    bad.write_text(json.dumps(tampered))
    result = runner.invoke(analyse_cmd, [str(bad), "--json"])
    assert result.exit_code == 1 and "game 1, action 2: crapette: compulsory" in result.stderr
    assert result.stdout == ""
    result = runner.invoke(analyse_cmd, [str(bad), "--depth", "fast"])
    assert result.exit_code == 2 and "fast" in result.stderr
    record = (GOLDEN / "classic-calls-resign.json").read_text()
    bad.write_text(json.dumps(json.loads(record)) + "\n" + json.dumps(json.loads(record)) + "\n")
    result = runner.invoke(analyse_cmd, [str(bad)])
    assert result.exit_code == 2 and "holds several (NDJSON)" in result.stderr


def test_verify_analysis_includes_the_judgements(fake: CardCount, record_file: Path) -> None:
    result = CliRunner().invoke(verify_cmd, [str(record_file), "--analysis", "--depth", "quick"])
    assert result.exit_code == 0, result.output + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("ok: m-test ")
    faults = lines.index("judgements (depth quick, seed 0):")
    assert lines[1].startswith("game 1: Ann ") and "fault(s)" in lines[1]  # the rule faults first
    assert any("missed: " in line for line in lines[:faults])
    assert lines[faults + 1].startswith("game 1: Ann accuracy ")
    assert lines[-1].startswith("match: Ann accuracy ")
    assert [c for c in fake.calls if c[0] == "rank"]


@pytest.mark.slow  # over 30 s on a loaded 2-core machine: out of the quick loop
def test_analyse_json_with_the_real_evaluator(record_file: Path) -> None:
    """The default judge end to end at `quick` depth: `domain.evaluator`'s chances, the same
    twice for one seed, and a learning-mode try of any judged move gets the analysis's figure."""
    import domain
    from server.readmodels.analysis_build import position_at
    from server.services import try_judge

    runner = CliRunner()
    args = [str(record_file), "--json", "--depth", "quick"]
    first = runner.invoke(analyse_cmd, args)
    assert first.exit_code == 0, first.output
    body = json.loads(first.stdout)
    assert json.loads(runner.invoke(analyse_cmd, args).stdout) == body
    [game] = body["games"]
    assert game["decisions"] and game["missed_calls"]
    for d in game["decisions"] + game["missed_calls"]:
        chance = d["win_chance"]
        assert 0.0 <= chance["after"] <= chance["best"] == chance["before"] <= 1.0
        assert d["judgement"] in judge.JUDGEMENTS
        if d["played"] is not None:  # every candidate's figure, for the learning mode
            assert d["candidates"][judge.candidate_key(d["played"])] == chance["after"]
    # A try the analysis did not rank is judged by the same engine: at the game's first
    # decision (nothing remembered yet, no plan) it gets the analysis's figures.
    record = json.loads(record_file.read_text())
    first = game["decisions"][0]
    at = position_at(record, first["version"])
    for which, figure in (("best", "best"), ("played", "after")):
        action = domain.action_from_json(first[which])
        tried = try_judge.judge_try(at, action, depth="quick", seed=0)
        assert tried == first["win_chance"][figure]


def test_a_terminal_gets_a_progress_bar_on_stderr(
    fake: CardCount, record_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    import sys

    from server.cli.analyse import judged

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    result = judged(json.loads(record_file.read_text()), "quick", 0)
    shown = terminal.getvalue()
    assert "analysing" in shown and "100%" in shown
    assert result["games"]


def test_analyse_reads_a_replay_file(fake: CardCount, tmp_path: Path) -> None:
    """A replay's HTML holds its record: `analyse` judges it as it would the JSON."""
    from server.readmodels.share.html import replay_html

    record = json.loads((GOLDEN / "classic-calls-resign.json").read_text())
    replay = {"match_id": record["match_id"], "frames": [], "analysis": {}, "live": False}
    page = tmp_path / "replay.html"
    page.write_text(replay_html(replay, {}, record, None), encoding="utf-8")
    runner = CliRunner()
    from_html = runner.invoke(analyse_cmd, [str(page), "--json"])
    assert from_html.exit_code == 0, from_html.output
    from_json = runner.invoke(analyse_cmd, [str(GOLDEN / "classic-calls-resign.json"), "--json"])
    assert json.loads(from_html.stdout) == json.loads(from_json.stdout)


def test_analyse_verifies_the_record_once(
    fake: CardCount, record_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from records import verify

    calls: list[str] = []
    real = verify.verify_record

    def counted(record: Any) -> Any:
        calls.append("verify")
        return real(record)

    monkeypatch.setattr(verify, "verify_record", counted)
    monkeypatch.setattr(judge, "verify_record", counted)
    for command, args in ((analyse_cmd, ["--json"]), (verify_cmd, ["--analysis"])):
        calls.clear()
        result = CliRunner().invoke(command, [str(record_file), *args])
        assert result.exit_code == 0, result.output + result.stderr
        assert calls == ["verify"], command.name


def test_no_evaluator_or_a_failing_one_exits_2_with_one_line(
    record_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """1 means "the record does not hold": an analysis that cannot run is 2, never a traceback."""

    def missing() -> Any:
        raise ImportError("No module named 'domain.evaluator'")

    def broken() -> Any:
        raise RuntimeError("the evaluator fell over")

    for evaluator, said in ((missing, "no evaluator"), (broken, "RuntimeError: the evaluator")):
        monkeypatch.setattr(judge, "evaluator", evaluator)
        for command, args in ((analyse_cmd, []), (verify_cmd, ["--analysis"])):
            result = CliRunner().invoke(command, [str(record_file), *args])
            assert result.exit_code == 2, (command.name, result.output, result.exception)
            assert said in result.stderr and len(result.stderr.splitlines()) == 1
            assert "Traceback" not in result.output


def test_verify_analysis_is_quick_by_default_and_its_help_says_so(
    fake: CardCount, record_file: Path
) -> None:
    result = CliRunner().invoke(verify_cmd, [str(record_file), "--analysis"])
    assert result.exit_code == 0, result.output + result.stderr
    assert "judgements (depth quick, seed 0):" in result.stdout.splitlines()
    shown = CliRunner().invoke(verify_cmd, ["--help"]).output
    assert "--depth and --seed apply with --analysis" in " ".join(shown.split())
