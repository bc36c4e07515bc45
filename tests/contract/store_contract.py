"""The event store contract: one abstract test class, subclassed once per backend (the shape of
the eventsourcing library's recorder tests). A subclass provides the `handles` fixture: a
callable returning a handle on the one store under test (a new connection where the backend has
connections, the same object for memory://); the base class closes what it opened."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from eventstore import (
    ANY,
    NO_STREAM,
    ConcurrencyError,
    DuplicateEventError,
    EventStore,
    EventStoreError,
    EventTooLargeError,
    InvalidEventError,
    NewEvent,
    RecordedEvent,
    SerializationError,
    StreamNameError,
    UpcasterError,
)

Handles = Callable[[], EventStore]


def events(n: int, prefix: str = "e", **data: Any) -> list[NewEvent]:
    return [NewEvent("Happened", {"n": i, **data}) for i in range(n)]


class EventStoreContract:
    """Every backend must pass these. `durable` backends also keep events across reopening."""

    durable = True

    @pytest.fixture
    def handles(self) -> Iterator[Handles]:
        raise NotImplementedError("a backend's test class provides the `handles` fixture")

    @pytest.fixture
    def store(self, handles: Handles) -> EventStore:
        return handles()

    # -- round trip and ordering ----------------------------------------------------------

    def test_round_trip_keeps_every_field(self, store: EventStore) -> None:
        event = NewEvent(
            "CardMoved",
            {
                "seat": 1,
                "src": "T3",
                "dst": "F0",
                "card": "7H/1",
                "ok": True,
                "f": 1.5,
                "none": None,
                "nested": {"list": [1, "two", [3]]},
                "unicode": "Crapette ♥ é",
            },
            metadata={"command": "act", "by": "Ann"},
            event_id="ev-0001",
            schema_version=3,
        )
        before = int(time.time() * 1000)
        assert store.append("match-1", [event], NO_STREAM) == 1
        after = int(time.time() * 1000)
        [recorded] = store.read("match-1")
        assert isinstance(recorded, RecordedEvent)
        assert (recorded.stream, recorded.version, recorded.position) == ("match-1", 1, 1)
        assert recorded.type == "CardMoved"
        assert recorded.data == event.data
        assert recorded.metadata == {"command": "act", "by": "Ann"}
        assert recorded.event_id == "ev-0001"
        assert recorded.schema_version == 3
        assert before - 1000 <= recorded.recorded_at_ms <= after + 1000
        assert store.read_all() == [recorded]

    def test_default_event_ids_are_unique(self, store: EventStore) -> None:
        store.append("s", events(50), NO_STREAM)
        assert len({e.event_id for e in store.read("s")}) == 50

    def test_tuples_are_stored_as_lists(self, store: EventStore) -> None:
        store.append("s", [NewEvent("T", {"pair": (1, 2)})], ANY)
        assert store.read("s")[0].data == {"pair": [1, 2]}

    def test_read_returns_fresh_dicts(self, store: EventStore) -> None:
        data = {"cards": ["AS/0"]}
        store.append("s", [NewEvent("T", data)], ANY)
        data["cards"].append("2S/0")
        first = store.read("s")[0]
        first.data["cards"].append("3S/0")
        assert store.read("s")[0].data == {"cards": ["AS/0"]}

    def test_streams_and_global_order(self, store: EventStore) -> None:
        assert store.append("a", events(2), NO_STREAM) == 2
        assert store.append("b", events(1), NO_STREAM) == 1
        assert store.append("a", events(3), 2) == 5
        assert [e.version for e in store.read("a")] == [1, 2, 3, 4, 5]
        assert [e.data["n"] for e in store.read("a")] == [0, 1, 0, 1, 2]
        everything = store.read_all()
        assert [e.position for e in everything] == [1, 2, 3, 4, 5, 6]
        assert [(e.stream, e.version) for e in everything] == [
            ("a", 1),
            ("a", 2),
            ("b", 1),
            ("a", 3),
            ("a", 4),
            ("a", 5),
        ]
        assert store.stream_version("a") == 5
        assert store.stream_version("b") == 1
        assert store.stream_version("nobody") == 0
        assert store.last_position() == 6

    def test_empty_store(self, store: EventStore) -> None:
        assert store.read_all() == []
        assert store.read("x") == []
        assert store.last_position() == 0
        assert store.list_streams() == []

    def test_list_streams_by_prefix(self, store: EventStore) -> None:
        for name in ["match-2", "match-10", "table-1", "match-1", "matches"]:
            store.append(name, events(2), NO_STREAM)
        assert store.list_streams() == ["match-1", "match-10", "match-2", "matches", "table-1"]
        assert store.list_streams("match-") == ["match-1", "match-10", "match-2"]
        assert store.list_streams("match-1") == ["match-1", "match-10"]
        assert store.list_streams("zzz") == []

    # -- batches --------------------------------------------------------------------------

    def test_a_batch_with_a_bad_event_writes_nothing(self, store: EventStore) -> None:
        store.append("s", events(1), NO_STREAM)
        bad = [*events(2), NewEvent("Bad", {"x": {1, 2}}), *events(2)]
        with pytest.raises(SerializationError):
            store.append("s", bad, 1)
        assert store.stream_version("s") == 1
        assert store.last_position() == 1

    def test_a_batch_failing_in_the_database_writes_nothing(self, store: EventStore) -> None:
        # The third event's id is taken by another stream: the database refuses the third insert
        # after the first two went in; the whole batch must roll back.
        store.append("other", [NewEvent("T", {}, event_id="taken")], NO_STREAM)
        batch = [*events(2), NewEvent("T", {}, event_id="taken"), *events(2)]
        with pytest.raises(DuplicateEventError):
            store.append("s", batch, NO_STREAM)
        assert store.read("s") == []
        assert store.last_position() == 1
        assert store.append("s", events(2), NO_STREAM) == 2  # positions went on without a gap
        assert [e.position for e in store.read_all()] == [1, 2, 3]

    def test_empty_batch_checks_the_version_only(self, store: EventStore) -> None:
        assert store.append("s", [], NO_STREAM) == 0
        store.append("s", events(2), NO_STREAM)
        assert store.append("s", [], 2) == 2
        assert store.append("s", [], ANY) == 2
        with pytest.raises(ConcurrencyError):
            store.append("s", [], 1)
        assert store.last_position() == 2

    # -- expected versions ----------------------------------------------------------------

    def test_no_stream_refuses_an_existing_stream(self, store: EventStore) -> None:
        store.append("s", events(3), NO_STREAM)
        with pytest.raises(ConcurrencyError) as info:
            store.append("s", events(1), NO_STREAM)
        assert info.value.actual_version == 3
        assert info.value.stream == "s"
        assert "version 3" in str(info.value)

    def test_zero_means_an_empty_stream(self, store: EventStore) -> None:
        assert store.append("s", events(1), 0) == 1
        with pytest.raises(ConcurrencyError) as info:
            store.append("s", events(1), 0)
        assert info.value.actual_version == 1

    @pytest.mark.parametrize("expected", [0, 1, 3, 4, 100])
    def test_a_wrong_version_is_refused(self, store: EventStore, expected: int) -> None:
        store.append("s", events(2), NO_STREAM)
        with pytest.raises(ConcurrencyError) as info:
            store.append("s", events(1), expected)
        assert info.value.actual_version == 2
        assert info.value.expected_version == expected
        assert store.stream_version("s") == 2

    def test_int_version_on_a_missing_stream(self, store: EventStore) -> None:
        with pytest.raises(ConcurrencyError) as info:
            store.append("s", events(1), 5)
        assert info.value.actual_version == 0

    def test_any_appends_at_whatever_version(self, store: EventStore) -> None:
        assert store.append("s", events(2), ANY) == 2
        assert store.append("s", events(1), ANY) == 3

    def test_two_writers_one_wins(self, handles: Handles) -> None:
        first, second = handles(), handles()
        first.append("s", events(1), NO_STREAM)
        barrier = threading.Barrier(8)
        outcomes: list[str] = []

        def write(handle: EventStore) -> None:
            barrier.wait()
            try:
                handle.append("s", events(1), 1)
                outcomes.append("won")
            except ConcurrencyError as exc:
                assert exc.actual_version == 2
                outcomes.append("lost")

        threads = [threading.Thread(target=write, args=(h,)) for h in [first, second] * 4]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(outcomes) == ["lost"] * 7 + ["won"]
        assert first.stream_version("s") == 2

    # -- idempotency ----------------------------------------------------------------------

    def test_the_same_batch_twice_is_written_once(self, store: EventStore) -> None:
        store.append("s", events(1), NO_STREAM)
        batch = events(3)
        assert store.append("s", batch, 1) == 4
        store.append("t", events(1), NO_STREAM)
        assert store.append("s", batch, 1) == 4  # stale expected version: still the retry
        assert store.append("s", batch, ANY) == 4
        assert store.append("s", batch, 4) == 4
        assert store.stream_version("s") == 4
        assert store.last_position() == 5

    def test_a_retry_after_later_appends_returns_the_original_version(
        self, store: EventStore
    ) -> None:
        batch = events(2)
        assert store.append("s", batch, NO_STREAM) == 2
        store.append("s", events(5), 2)
        assert store.append("s", batch, NO_STREAM) == 2
        assert store.stream_version("s") == 7

    def test_without_retry_a_stored_batch_is_a_duplicate(self, store: EventStore) -> None:
        batch = events(2)
        assert store.append("s", batch, NO_STREAM, retry=False) == 2
        with pytest.raises(DuplicateEventError, match="written before"):
            store.append("s", batch, NO_STREAM, retry=False)
        with pytest.raises(ConcurrencyError):  # a plain conflict stays a conflict
            store.append("s", events(1), NO_STREAM, retry=False)
        assert store.last_position() == 2

    def test_an_overlapping_batch_is_refused(self, store: EventStore) -> None:
        batch = events(2)
        store.append("s", batch, NO_STREAM)
        with pytest.raises(DuplicateEventError, match=batch[0].event_id):
            store.append("s", [batch[0], *events(1)], ANY)
        with pytest.raises(DuplicateEventError):
            store.append("s", [batch[1], batch[0]], ANY)
        with pytest.raises(DuplicateEventError):
            store.append("other", batch, ANY)
        assert store.last_position() == 2

    def test_one_id_twice_in_a_batch_is_refused(self, store: EventStore) -> None:
        event = NewEvent("T", {})
        with pytest.raises(InvalidEventError):
            store.append("s", [event, event], NO_STREAM)
        assert store.last_position() == 0

    # -- read ranges ----------------------------------------------------------------------

    def test_read_ranges(self, store: EventStore) -> None:
        store.append("s", events(10), NO_STREAM)

        def versions(*args: Any) -> list[int]:
            return [e.version for e in store.read("s", *args)]

        assert versions() == list(range(1, 11))
        assert versions(0) == list(range(1, 11))
        assert versions(4) == list(range(4, 11))
        assert versions(4, 6) == [4, 5, 6]
        assert versions(6, 6) == [6]
        assert versions(7, 6) == []
        assert versions(10, 100) == [10]
        assert versions(11) == []
        assert versions(1, 0) == []
        assert versions(0, 3) == [1, 2, 3]

    def test_read_all_ranges(self, store: EventStore) -> None:
        store.append("a", events(4), NO_STREAM)
        store.append("b", events(4), NO_STREAM)
        assert [e.position for e in store.read_all(3)] == [3, 4, 5, 6, 7, 8]
        assert [e.position for e in store.read_all(3, limit=2)] == [3, 4]
        assert [e.position for e in store.read_all(0, limit=1)] == [1]
        assert store.read_all(9) == []
        assert store.read_all(1, limit=0) == []
        assert [e.position for e in store.read_all(limit=100)] == list(range(1, 9))

    @pytest.mark.parametrize("args", [(-1,), (1, -1), ("1",), (True,)])
    def test_bad_read_arguments(self, store: EventStore, args: tuple[Any, ...]) -> None:
        with pytest.raises(InvalidEventError):
            store.read("s", *args)

    def test_bad_read_all_arguments(self, store: EventStore) -> None:
        with pytest.raises(InvalidEventError):
            store.read_all(-1)
        with pytest.raises(InvalidEventError):
            store.read_all(1, limit=-5)

    # -- global order under concurrent writers --------------------------------------------

    @pytest.mark.slow
    def test_concurrent_writers_and_readers_see_one_consistent_order(
        self, handles: Handles
    ) -> None:
        writers, appends = 10, 100
        rng = random.Random(4)
        plans = [[rng.randint(1, 3) for _ in range(appends)] for _ in range(writers)]
        total = sum(map(sum, plans))
        done = threading.Event()
        errors: list[BaseException] = []
        seen: list[list[RecordedEvent]] = [[], []]

        def writer(index: int) -> None:
            try:
                handle = handles()
                version = 0
                for step, size in enumerate(plans[index]):
                    batch = [
                        NewEvent("Wrote", {"w": index, "step": step, "i": i}) for i in range(size)
                    ]
                    if step % 10 == 9:  # a stream all writers share, at whatever version
                        handle.append("shared", batch, ANY)
                    else:
                        version = handle.append(f"writer-{index}", batch, version)
            except BaseException as exc:  # reported by the main thread
                errors.append(exc)

        def reader(index: int) -> None:
            try:
                handle = handles()
                mine = seen[index]
                while True:
                    finished = done.is_set()
                    batch = handle.read_all(len(mine) + 1, limit=rng.choice([7, 50, None]))
                    mine.extend(batch)
                    if finished and not batch:
                        return
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=writer, args=(i,)) for i in range(writers)]
        readers = [threading.Thread(target=reader, args=(i,)) for i in range(2)]
        for thread in readers + threads:
            thread.start()
        for thread in threads:
            thread.join()
        done.set()
        for thread in readers:
            thread.join()
        assert not errors, [repr(e) for e in errors]

        final = handles().read_all()
        assert len(final) == total
        for mine in seen:
            # Nothing skipped, nothing twice, in position order: positions are exactly 1..total.
            assert [e.position for e in mine] == list(range(1, total + 1))
            assert [e.event_id for e in mine] == [e.event_id for e in final]
            assert len({e.event_id for e in mine}) == total
            # Each stream's versions come in order without holes.
            last: dict[str, int] = {}
            for event in mine:
                assert event.version == last.get(event.stream, 0) + 1
                last[event.stream] = event.version
            # Each writer's own events appear in the order it wrote them.
            for w in range(writers):
                steps = [(e.data["step"], e.data["i"]) for e in mine if e.data["w"] == w]
                assert steps == sorted(steps)
                assert len(steps) == sum(plans[w])

    # -- subscriptions --------------------------------------------------------------------

    def test_subscription_catches_up_then_goes_live(self, handles: Handles) -> None:
        store = handles()
        store.append("a", events(3), NO_STREAM)
        store.append("b", events(2), NO_STREAM)
        with store.subscribe(from_position=2) as subscription:
            caught_up = [subscription.get(timeout=5) for _ in range(4)]
            assert [e.position for e in caught_up if e is not None] == [2, 3, 4, 5]
            assert subscription.get(timeout=0) is None
            assert subscription.position == 5

            # Live: appended while the subscriber waits, from another thread and handle.
            writer = handles()

            def write_later() -> None:
                time.sleep(0.05)
                writer.append("c", events(2), NO_STREAM)

            thread = threading.Thread(target=write_later)
            thread.start()
            live = [subscription.get(timeout=10), subscription.get(timeout=10)]
            thread.join()
            assert [(e.stream, e.version, e.position) for e in live if e is not None] == [
                ("c", 1, 6),
                ("c", 2, 7),
            ]

            store.append("d", events(1), NO_STREAM)
            assert next(subscription).position == 8

    def test_subscription_iteration_ends_when_closed(self, store: EventStore) -> None:
        store.append("a", events(2), NO_STREAM)
        subscription = store.subscribe()
        received: list[int] = []

        def consume() -> None:
            for event in subscription:
                received.append(event.position)

        thread = threading.Thread(target=consume)
        thread.start()
        store.append("a", events(1), 2)
        deadline = time.monotonic() + 10
        while len(received) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        subscription.close()
        thread.join(timeout=10)
        assert not thread.is_alive()
        assert received == [1, 2, 3]

    def test_subscription_applies_upcasters(self, store: EventStore) -> None:
        store.register_upcaster("Old", 1, lambda d: {**d, "new": True})
        store.append("a", [NewEvent("Old", {})], NO_STREAM)
        event = store.subscribe().get(timeout=5)
        assert event is not None and event.data == {"new": True} and event.schema_version == 2

    # -- schema versions ------------------------------------------------------------------

    def test_upcasters_chain_to_the_current_form(self, store: EventStore) -> None:
        store.append(
            "s",
            [
                NewEvent("Moved", {"from": "T1"}, schema_version=1),
                NewEvent("Moved", {"src": "T2"}, schema_version=2),
                NewEvent("Moved", {"src": "T3", "card": "AS/0"}, schema_version=3),
                NewEvent("Other", {"from": "T4"}, schema_version=1),
            ],
            NO_STREAM,
        )
        store.register_upcaster("Moved", 1, lambda d: {"src": d["from"]})
        store.register_upcaster("Moved", 2, lambda d: {**d, "card": None})
        moved = store.read("s")
        assert [e.data for e in moved] == [
            {"src": "T1", "card": None},
            {"src": "T2", "card": None},
            {"src": "T3", "card": "AS/0"},
            {"from": "T4"},
        ]
        assert [e.schema_version for e in moved] == [3, 3, 3, 1]
        assert [e.data for e in store.read_all()] == [e.data for e in moved]

    def test_upcaster_failures_are_reported(self, store: EventStore) -> None:
        store.append("s", [NewEvent("Moved", {})], NO_STREAM)
        store.register_upcaster("Moved", 1, lambda d: d["missing"])
        with pytest.raises(UpcasterError, match="Moved v1"):
            store.read("s")

    def test_an_upcaster_cannot_be_registered_twice(self, store: EventStore) -> None:
        store.register_upcaster("Moved", 1, dict)
        with pytest.raises(InvalidEventError):
            store.register_upcaster("Moved", 1, dict)
        with pytest.raises(InvalidEventError):
            store.register_upcaster("Moved", 0, dict)

    # -- bad input ------------------------------------------------------------------------

    @pytest.mark.parametrize(
        ("data", "where"),
        [
            ({"cards": {"AS/0"}}, "cards"),
            ({"when": object()}, "when"),
            ({"x": float("nan")}, "x"),
            ({"x": [1, float("inf")]}, "x[1]"),
            ({"raw": b"bytes"}, "raw"),
            ({1: "int key"}, "key 1"),
            ({"deep": {"er": {(1, 2): 0}}}, "deep.er"),
        ],
    )
    def test_payloads_that_are_not_json_are_refused(
        self, store: EventStore, data: dict[Any, Any], where: str
    ) -> None:
        with pytest.raises(SerializationError, match=__import__("re").escape(where)):
            store.append("s", [NewEvent("T", data)], NO_STREAM)
        with pytest.raises(SerializationError):
            store.append("s", [NewEvent("T", {}, metadata=data)], NO_STREAM)
        assert store.last_position() == 0

    @pytest.mark.parametrize("data", [None, [1, 2], "text", 3])
    def test_payloads_must_be_objects(self, store: EventStore, data: Any) -> None:
        with pytest.raises(SerializationError, match="JSON object"):
            store.append("s", [NewEvent("T", data)], NO_STREAM)

    def test_oversized_events_are_refused(self, store: EventStore) -> None:
        limit = store.max_event_bytes
        with pytest.raises(EventTooLargeError, match=str(limit)):
            store.append("s", [NewEvent("T", {"blob": "x" * limit})], NO_STREAM)
        with pytest.raises(EventTooLargeError):  # multi-byte characters count as bytes
            store.append("s", [NewEvent("T", {"blob": "é" * (limit // 2)})], NO_STREAM)
        with pytest.raises(EventTooLargeError):  # metadata counts too
            half = "x" * (limit // 2)
            store.append("s", [NewEvent("T", {"a": half}, metadata={"b": half})], NO_STREAM)
        assert store.append("s", [NewEvent("T", {"blob": "x" * (limit - 100)})], NO_STREAM) == 1

    @pytest.mark.parametrize(
        "name", ["", " ", "a b", "$all", "-leading", "x" * 201, "tab\there", "é", None, 7]
    )
    def test_invalid_stream_names_are_refused(self, store: EventStore, name: Any) -> None:
        with pytest.raises(StreamNameError):
            store.append(name, events(1), NO_STREAM)
        with pytest.raises(StreamNameError):
            store.read(name)
        with pytest.raises(StreamNameError):
            store.stream_version(name)
        assert store.last_position() == 0

    @pytest.mark.parametrize("name", ["m-1f3a", "match:1", "a", "x" * 200, "t/1.2_b@c+d=e"])
    def test_valid_stream_names(self, store: EventStore, name: str) -> None:
        assert store.append(name, events(1), NO_STREAM) == 1
        assert store.list_streams() == [name]

    @pytest.mark.parametrize(
        "event",
        [
            NewEvent("", {}),
            NewEvent("has space", {}),
            NewEvent("T", {}, event_id=""),
            NewEvent("T", {}, event_id="with space"),
            NewEvent("T", {}, event_id="x" * 201),
            NewEvent("T", {}, schema_version=0),
            NewEvent("T", {}, schema_version=True),
        ],
    )
    def test_malformed_events_are_refused(self, store: EventStore, event: NewEvent) -> None:
        with pytest.raises(InvalidEventError):
            store.append("s", [event], NO_STREAM)

    @pytest.mark.parametrize("expected", [-3, True, "1", None, 1.0])
    def test_bad_expected_versions(self, store: EventStore, expected: Any) -> None:
        with pytest.raises(InvalidEventError):
            store.append("s", events(1), expected)

    def test_a_lone_event_is_not_a_batch(self, store: EventStore) -> None:
        with pytest.raises(InvalidEventError, match="list"):
            store.append("s", NewEvent("T", {}), NO_STREAM)  # type: ignore[arg-type]
        with pytest.raises(InvalidEventError):
            store.append("s", [{"type": "T"}], NO_STREAM)  # type: ignore[list-item]

    def test_a_closed_store_refuses_work(self, handles: Handles) -> None:
        store = handles()
        store.close()
        with pytest.raises(EventStoreError, match="closed"):
            store.append("s", events(1), NO_STREAM)
        with pytest.raises(EventStoreError):
            store.read_all()
        store.close()  # closing twice is harmless

    # -- copying in (eventstore.copy) -----------------------------------------------------

    def test_copy_in_keeps_ids_versions_and_times(self, store: EventStore) -> None:
        store.append("a", events(2), NO_STREAM)
        store.append("b", [NewEvent("T", {"x": [1, 2.5, "é"]}, {"m": 1}, "id-b1", 3)], 0)
        store.append("a", events(1), 2)
        recorded = store.read_all()
        # Copied back into the same store under other names (a handle may be the same store).
        copies = [
            e._replace(stream="copy-" + e.stream, event_id="copy-" + e.event_id, recorded_at_ms=7)
            for e in recorded
        ]
        store.copy_in(copies[:2])
        store.copy_in(copies[2:])
        copied = store.read_all(5)
        assert copied == [c._replace(position=c.position + 4) for c in copies]
        assert store.append("copy-a", events(1), 3) == 4  # the copy goes on like any stream

    def test_copy_in_refuses_a_gap_or_a_second_copy_and_writes_nothing(
        self, handles: Handles
    ) -> None:
        source = handles()
        source.append("a", events(3), NO_STREAM)
        recorded = source.read_all()
        with pytest.raises(ConcurrencyError):
            source.copy_in([recorded[0]._replace(stream="c", version=2)])
        assert source.stream_version("c") == 0
        fresh = recorded[0]._replace(stream="c", event_id="new-id")
        with pytest.raises(DuplicateEventError):  # an id already stored, in one batch
            source.copy_in([fresh, recorded[1]._replace(stream="c", version=2)])
        assert source.stream_version("c") == 0 and source.last_position() == 3
        with pytest.raises(InvalidEventError):
            source.copy_in([NewEvent("T", {})])  # type: ignore[list-item]

    # -- durability -----------------------------------------------------------------------

    def test_reopening(self, handles: Handles) -> None:
        store = handles()
        store.append("s", events(3), NO_STREAM)
        store.close()
        again = handles()
        if not self.durable:  # memory:// keeps nothing after close, by design
            assert again.read_all() == []
            return
        assert [e.version for e in again.read("s")] == [1, 2, 3]
        assert again.append("s", events(1), 3) == 4
        assert again.last_position() == 4
