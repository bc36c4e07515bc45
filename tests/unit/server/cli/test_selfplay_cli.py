"""`crapette selfplay`: plays games through the domain, prints a summary, exports records, and
exits non-zero when an invariant breaks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from domain.bots import arena
from server.cli import main


def selfplay(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["selfplay", *args])
    return result.exit_code, result.output


def test_json_summary_adds_up() -> None:
    code, out = selfplay("--games", "3", "--bots", "steady,random", "--seed", "abc", "--json")
    assert code == 0, out
    summary = json.loads(out)
    assert summary["games"] == 3
    wins = summary["wins_by_bot"]
    assert set(wins) == {"A:steady", "B:random"}
    assert sum(wins.values()) + summary["stalemates"] == 3
    assert sum(summary["wins_by_seat"].values()) == sum(wins.values())
    assert summary["average_actions"] > 20
    assert summary["games_per_second"] > 0
    assert summary["faults"] >= summary["calls"]["right"]


@pytest.mark.slow
def test_same_seed_same_run_other_seed_other_run() -> None:
    def run(seed: str) -> dict[str, object]:
        code, out = selfplay("--games", "2", "--bots", "steady,steady", "--seed", seed, "--json")
        assert code == 0, out
        summary: dict[str, object] = json.loads(out)
        summary.pop("seconds"), summary.pop("games_per_second")
        return summary

    assert run("1f") == run("1f")
    assert run("1f") != run("2f")


def test_single_games_swap_seats_every_game() -> None:
    code, out = selfplay(
        "--games", "4", "--bots", "steady,random", "--single-games", "--preset", "g4a", "--json"
    )
    assert code == 0, out
    summary = json.loads(out)
    # steady wins every game against random here; seats alternate, so both seats win.
    assert summary["wins_by_bot"]["A:steady"] == 4
    assert summary["wins_by_seat"] == {"0": 2, "1": 2}


def test_text_summary_names_the_bots(tmp_path: Path) -> None:
    code, out = selfplay("--games", "2", "--bots", "sharp,steady", "--preset", "french")
    assert code == 0, out
    assert "sharp (A) against steady (B)" in out
    assert "games/s" in out and "stalemates" in out


@pytest.mark.slow
def test_export_writes_records_that_verify(tmp_path: Path) -> None:
    code, out = selfplay(
        "--games", "2", "--bots", "steady,random", "--single-games", "--export", str(tmp_path)
    )
    assert code == 0, out
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == 2
    record = json.loads(files[0].read_text())
    assert record["format"] == "crapette-record/1"
    assert len(record["games"]) == 1
    verify = CliRunner().invoke(main, ["verify", str(files[1])])
    assert verify.exit_code == 0, verify.output


def test_export_ids_and_player_names_say_seed_preset_and_bots(tmp_path: Path) -> None:
    """Two runs that differ in preset or bots export under different ids (they used to clash
    as `selfplay-5e1f-0000`), and each player is named after the bot that played the seat."""
    runs = {
        "a": ("--bots", "random,random", "--preset", "classic"),
        "b": ("--bots", "steady,random", "--preset", "classic"),
        "c": ("--bots", "steady,random", "--preset", "beginner"),
    }
    names = {}
    for key, args in runs.items():
        out_dir = tmp_path / key
        code, out = selfplay("--games", "2", "--single-games", *args, "--export", str(out_dir))
        assert code == 0, out
        names[key] = sorted(path.stem for path in out_dir.glob("*.json"))
        first, second = (json.loads(p.read_text()) for p in sorted(out_dir.glob("*.json")))
        if key == "b":  # the bots swap seats each match: the names follow them
            assert first["players"] == ["steady bot (A)", "random bot (B)"]
            assert second["players"] == ["random bot (B)", "steady bot (A)"]
        if key == "a":
            assert first["players"] == ["random bot (A)", "random bot (B)"]
    assert names["a"] == ["selfplay-5e1f-classic-random-random-0000",
                          "selfplay-5e1f-classic-random-random-0001"]  # fmt: skip
    assert names["b"][0] == "selfplay-5e1f-classic-steady-random-0000"
    assert names["c"][0] == "selfplay-5e1f-beginner-steady-random-0000"


def test_bad_arguments_are_refused() -> None:
    code, out = selfplay("--bots", "steady")
    assert code == 2 and "two of random, steady, sharp" in out
    code, out = selfplay("--seed", "xyz")
    assert code == 2 and "not hexadecimal" in out


def test_a_broken_invariant_exits_non_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = {"n": 0}
    real = arena.check_cards

    def lose_a_card_later(state: object) -> None:
        calls["n"] += 1
        if calls["n"] > 50:
            raise arena.InvariantError("game 0: 103 cards on the table, 103 distinct")
        real(state)

    monkeypatch.setattr(arena, "check_cards", lose_a_card_later)
    code, out = selfplay("--games", "1", "--bots", "steady,steady")
    assert code == 1
    assert "invariant broken: game 0: 103 cards" in out


def test_a_game_that_never_ends_is_an_invariant_break(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(arena, "MAX_ACTIONS_PER_GAME", 30)
    code, out = selfplay("--games", "1", "--bots", "random,random")
    assert code == 1
    assert "no end after 30 actions" in out


@pytest.mark.slow
def test_an_export_with_a_long_seed_imports_under_its_own_id(tmp_path: Path) -> None:
    seed = "ab" * 34  # 68 hex digits: the id must still be one the server serves
    code, out = selfplay(
        "--games", "1", "--bots", "random,random", "--single-games", "--seed", seed,
        "--export", str(tmp_path / "out"),
    )  # fmt: skip
    assert code == 0, out
    (exported,) = sorted((tmp_path / "out").glob("*.json"))
    store = f"sqlite:///{tmp_path}/store.sqlite3"
    result = CliRunner().invoke(main, ["import", str(exported), "--store", store])
    assert result.exit_code == 0, result.output
    assert "imported selfplay-" in result.output


@pytest.mark.parametrize("bots", ["random,sharp", "steady,sharp"])
def test_the_three_hands_preset_plays_to_completion(tmp_path: Path, bots: str) -> None:
    """italian-three-hands (docs/spec/rules.md §10): every game ends, the invariants hold (the
    command exits 1 otherwise), and the records verify; random names hands, the others do not."""
    code, out = selfplay(
        "--games", "2", "--bots", bots, "--single-games", "--preset", "italian-three-hands",
        "--seed", "3a", "--export", str(tmp_path), "--json",
    )  # fmt: skip
    assert code == 0, out
    summary = json.loads(out)
    assert sum(summary["wins_by_bot"].values()) + summary["stalemates"] == 2
    named = []
    for path in sorted(tmp_path.glob("*.json")):
        record = json.loads(path.read_text())
        assert record["ruleset"]["hands_per_player"] == 3
        assert all(game["result"] is not None for game in record["games"])
        verify = CliRunner().invoke(main, ["verify", str(path)])
        assert verify.exit_code == 0, verify.output
        actions = [a for game in record["games"] for a in game["actions"]]
        named += [a["hand"] for a in actions if "hand" in a]
    # Only the random bot names a hand.
    assert bool(named) == bots.startswith("random")
