"""`crapette store copy` and eventstore.copy on SQLite files (PostgreSQL: tests/integration)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from eventstore import ANY, EventStore, NewEvent, open_store
from eventstore.copy import CopyError, compare_stores, copy_store
from server.cli.store import store as store_group


def _fill(url: str, events: int = 40) -> None:
    with open_store(url) as store:
        for i in range(events):
            metadata = {"command_id": f"c{i}"} if i % 3 else {}
            store.append(f"match-m{i % 7}", [NewEvent("Moved", {"i": i}, metadata)], ANY)


@pytest.fixture
def source_url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'source.sqlite3'}"
    _fill(url)
    return url


def _copy(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(store_group, ["copy", *args])
    return result.exit_code, result.output


def test_copy_then_again_writes_nothing_and_checks(source_url: str, tmp_path: Path) -> None:
    target = f"sqlite:///{tmp_path / 'target.sqlite3'}"
    code, output = _copy("--from", source_url, "--to", target, "--batch-size", "7")
    assert code == 0, output
    assert "copied 40 event(s); 0 were already there" in output
    assert "checked 7 stream(s), 40 event(s)" in output
    code, output = _copy("--from", source_url, "--to", target)
    assert code == 0, output
    assert "copied 0 event(s); 40 were already there" in output
    with open_store(source_url) as a, open_store(target) as b:
        assert a.read_all() == b.read_all()  # ids, versions, positions, times, payloads


class _Stop(Exception):
    pass


def test_a_copy_stopped_midway_resumes_without_duplicates(source_url: str, tmp_path: Path) -> None:
    with open_store(source_url) as source, open_store("memory://") as target:
        seen = 0

        def stop_after_two_pages(n: int) -> None:
            nonlocal seen
            seen += n
            if seen >= 10:
                raise _Stop

        with pytest.raises(_Stop):
            copy_store(source, target, batch_size=5, progress=stop_after_two_pages)
        assert target.last_position() == 10
        result = copy_store(source, target, batch_size=5)
        assert (result.copied, result.already, result.total) == (30, 10, 40)
        assert source.read_all() == target.read_all()
        assert compare_stores(source, target).identical


def test_a_target_that_is_not_a_copy_is_refused(source_url: str, tmp_path: Path) -> None:
    target = f"sqlite:///{tmp_path / 'other.sqlite3'}"
    with open_store(target) as other:
        other.append("elsewhere", [NewEvent("X", {})], ANY)
    code, output = _copy("--from", source_url, "--to", target)
    assert code == 1
    assert "is not the source's" in output and "Traceback" not in output
    with open_store(source_url) as source, open_store(target) as other:
        with pytest.raises(CopyError):
            copy_store(source, other)
        assert other.last_position() == 1  # nothing written


def test_the_check_names_a_stream_that_differs(source_url: str) -> None:
    with open_store(source_url) as source, open_store("memory://") as target:
        copy_store(source, target)
        target.append("match-m3", [NewEvent("Extra", {})], ANY)
        target.append("match-new", [NewEvent("Extra", {})], ANY)
        comparison = compare_stores(source, target)
        problems = {d.stream: d.problem for d in comparison.differences}
        assert problems == {
            "match-m3": "6 events in the source, 7 copied",
            "match-new": "0 events in the source, 1 copied",
        }


def test_same_counts_but_other_events_differ(tmp_path: Path) -> None:
    stores: list[EventStore] = []
    for name, value in (("a", 1), ("b", 2)):
        store = open_store(f"sqlite:///{tmp_path / name}.sqlite3")
        store.append("s", [NewEvent("X", {"v": value}, event_id="same")], ANY)
        stores.append(store)
    comparison = compare_stores(*stores)
    assert [d.problem for d in comparison.differences] == ["same count, different events"]
    for store in stores:
        store.close()


def test_a_missing_source_is_one_line(tmp_path: Path) -> None:
    code, output = _copy("--from", f"sqlite:///{tmp_path / 'nope.sqlite3'}", "--to", "memory://")
    assert code == 2 and output.startswith("error: there is no source store")
    assert not (tmp_path / "nope.sqlite3").exists()
