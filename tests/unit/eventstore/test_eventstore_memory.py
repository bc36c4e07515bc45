"""Unit tests of behaviour shared by every backend, on the in-memory store (no I/O): model-based
checks of appends and reads, upcasting, subscriptions."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from eventstore import ANY, NO_STREAM, ConcurrencyError, NewEvent, open_store

appends = st.lists(
    st.tuples(
        st.sampled_from(["a", "b", "c"]),
        st.integers(min_value=0, max_value=3),  # batch size
        st.sampled_from(["right", "stale", "any", "none"]),
    ),
    max_size=30,
)


@given(appends)
def test_the_store_behaves_like_a_dict_of_lists(steps: list[tuple[str, int, str]]) -> None:
    store = open_store("memory://")
    model: dict[str, list[str]] = {}
    order: list[str] = []
    for stream, size, how in steps:
        batch = [NewEvent("T", {"k": len(order) + i}) for i in range(size)]
        current = len(model.get(stream, []))
        expected = {"right": current, "stale": current + 1, "any": ANY, "none": NO_STREAM}[how]
        should_fail = how == "stale" or (how == "none" and current > 0)
        if should_fail:
            with pytest.raises(ConcurrencyError) as info:
                store.append(stream, batch, expected)
            assert info.value.actual_version == current
            continue
        assert store.append(stream, batch, expected) == current + size
        ids = [e.event_id for e in batch]
        model.setdefault(stream, []).extend(ids)
        order.extend(ids)
    for stream, ids in model.items():
        assert [e.event_id for e in store.read(stream)] == ids
        assert store.stream_version(stream) == len(ids)
    assert [e.event_id for e in store.read_all()] == order
    assert store.last_position() == len(order)
    assert store.list_streams() == sorted(s for s, ids in model.items() if ids)


def test_upcasters_do_not_touch_the_stored_payload() -> None:
    store = open_store("memory://")
    store.append("s", [NewEvent("Old", {"a": 1})], NO_STREAM)
    store.register_upcaster("Old", 1, lambda d: {"b": d["a"]})
    assert store.read("s")[0].data == {"b": 1}
    assert store._read("s", 1, None)[0][4] == '{"a":1}'


def test_subscription_position_and_timeout() -> None:
    store = open_store("memory://")
    subscription = store.subscribe()
    assert subscription.get(timeout=0) is None
    assert subscription.position == 0
    store.append("s", [NewEvent("T", {}), NewEvent("T", {})], NO_STREAM)
    first = subscription.get(timeout=0)
    assert first is not None and first.position == 1
    assert subscription.position == 1
    store.close()
    assert subscription.closed
    assert subscription.get(timeout=0) is not None  # already read before the close
    assert subscription.get(timeout=0) is None
    assert list(subscription) == []
