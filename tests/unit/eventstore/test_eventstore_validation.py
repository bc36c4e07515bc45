"""Unit tests of the store's input checks and URL handling (no database, no I/O)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from eventstore import (
    ANY,
    DEFAULT_MAX_EVENT_BYTES,
    NO_STREAM,
    ConcurrencyError,
    EventStoreError,
    EventTooLargeError,
    InvalidEventError,
    NewEvent,
    SerializationError,
    StreamNameError,
    open_store,
)
from eventstore.events import check_expected_version, check_stream_name, prepare, to_json
from eventstore.postgres import split_url

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.text()
    | st.floats(allow_nan=False, allow_infinity=False)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)
json_objects = st.dictionaries(st.text(), json_values, max_size=6)


@pytest.mark.slow
@given(json_objects)
def test_any_json_object_round_trips_through_the_store(data: dict[str, Any]) -> None:
    store = open_store("memory://")
    store.append("s", [NewEvent("T", data, metadata={"m": data})], NO_STREAM)
    [event] = store.read("s")
    assert event.data == data
    assert event.metadata == {"m": data}


def test_prepare_serializes_compactly_and_keeps_unicode() -> None:
    prepared = prepare(NewEvent("T", {"a": [1, 2], "s": "é♥"}, event_id="x"), 1000)
    assert prepared.data_json == '{"a":[1,2],"s":"é♥"}'
    assert prepared.metadata_json == "{}"
    assert (prepared.type, prepared.event_id, prepared.schema_version) == ("T", "x", 1)


def test_size_limit_is_in_utf8_bytes() -> None:
    prepare(NewEvent("T", {"s": "x" * 90}), 100)  # {"s":"..."} and {} make 100 bytes
    with pytest.raises(EventTooLargeError, match="104 bytes of JSON; the limit is 100 bytes"):
        prepare(NewEvent("T", {"s": "é" * 47}), 100)  # 57 characters, 104 bytes


def test_default_size_limit_is_64_kib() -> None:
    assert DEFAULT_MAX_EVENT_BYTES == 65536
    store = open_store("memory://", max_event_bytes=50)
    with pytest.raises(EventTooLargeError):
        store.append("s", [NewEvent("T", {"s": "x" * 50})], NO_STREAM)


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"a": {1, 2}}, "T.data.a is a set"),
        ({"a": [0, {"b": float("nan")}]}, "T.data.a[1].b is nan"),
        ({"a": {2: "x"}}, "T.data.a has a key 2 of type int"),
        ({None: 1}, "T.data has a key None"),
        ({"a": object()}, "T.data.a is a object"),
    ],
)
def test_serialization_errors_name_the_culprit(payload: dict[Any, Any], message: str) -> None:
    with pytest.raises(SerializationError) as info:
        to_json(payload, "T.data")
    assert message in str(info.value)


def test_a_cycle_is_refused_not_a_crash() -> None:
    data: dict[str, Any] = {}
    data["self"] = data
    with pytest.raises(SerializationError, match="deep"):
        to_json(data, "T.data")


def test_mappings_other_than_dict_are_accepted() -> None:
    from types import MappingProxyType

    assert to_json(MappingProxyType({"a": 1}), "d") == '{"a":1}'


def test_stream_name_rules() -> None:
    assert check_stream_name("match-1f3a") == "match-1f3a"
    with pytest.raises(StreamNameError, match="at most 200"):
        check_stream_name("m" * 201)
    with pytest.raises(StreamNameError, match="not allowed"):
        check_stream_name("$all")
    with pytest.raises(StreamNameError, match="empty"):
        check_stream_name("")


def test_expected_version_values() -> None:
    assert (NO_STREAM, ANY) == (-1, -2)
    assert check_expected_version(0) == 0
    assert check_expected_version(ANY) == ANY
    with pytest.raises(InvalidEventError):
        check_expected_version(-3)


def test_concurrency_error_message_and_fields() -> None:
    error = ConcurrencyError("m-1", NO_STREAM, 4)
    assert (error.stream, error.expected_version, error.actual_version) == ("m-1", -1, 4)
    assert str(error) == "stream 'm-1' is at version 4, but the append expected no stream yet"
    assert "any version" in str(ConcurrencyError("m-1", ANY, 4))


@pytest.mark.parametrize(
    "url", ["mysql://x", "sqlite://", "memory", "sqlite:///tmp/x.db?journal=off"]
)
def test_bad_store_urls(url: str) -> None:
    with pytest.raises(EventStoreError):
        open_store(url)


def test_postgres_url_schema_parameter_is_ours() -> None:
    assert split_url("postgresql://u@h:5/db?schema=s1&sslmode=disable") == (
        "postgresql://u@h:5/db?sslmode=disable",
        "s1",
    )
    assert split_url("postgresql://u@h/db") == ("postgresql://u@h/db", "public")
    with pytest.raises(InvalidEventError):
        split_url("postgresql://u@h/db?schema=a;drop")
