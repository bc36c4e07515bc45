"""What goes into the store (`NewEvent`) and what comes out (`RecordedEvent`), and the checks every
backend applies before writing: stream names, event types and ids, JSON payloads, size limit."""

from __future__ import annotations

import json
import math
import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, NamedTuple

from eventstore.errors import (
    EventTooLargeError,
    InvalidEventError,
    SerializationError,
    StreamNameError,
)
from eventstore.versions import ANY as ANY
from eventstore.versions import NO_STREAM as NO_STREAM

# The special values of `expected_version`, defined in versions.py, are re-exported here.

# One event's data + metadata, as UTF-8 JSON. A Crapette event is well under 2 KiB (a GameStarted
# with both packs spelled out is the largest); 64 KiB leaves room for any record import while
# keeping every SQLite write transaction short, which matters under eventlet.
DEFAULT_MAX_EVENT_BYTES: Final = 64 * 1024

MAX_NAME_LENGTH: Final = 200
_STREAM_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:@/+=-]*")
_EVENT_TYPE = re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]*")
_EVENT_ID = re.compile(r"[\x21-\x7e]+")  # printable ASCII, no spaces: uuid hex, "m-1/42"...


def _new_event_id() -> str:
    return uuid.uuid4().hex


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event to append. `data` and `metadata` must be JSON objects (dicts with str keys).
    `event_id` makes appends idempotent: retrying a batch with the same ids writes nothing."""

    type: str
    data: Mapping[str, Any]
    metadata: Mapping[str, Any] = field(default_factory=dict)
    event_id: str = field(default_factory=_new_event_id)
    schema_version: int = 1


class RecordedEvent(NamedTuple):
    """A stored event. `version` is 1-based within its stream; `position` is 1-based across the
    whole store, in commit order, without gaps. `data`/`metadata` are fresh dicts on every read.
    A NamedTuple rather than a frozen dataclass: it is built once per event read, and building
    a tuple costs a quarter of a frozen dataclass, which shows in every rebuild of a match."""

    stream: str
    version: int
    position: int
    type: str
    data: dict[str, Any]
    metadata: dict[str, Any]
    event_id: str
    schema_version: int
    recorded_at_ms: int


class PreparedEvent(NamedTuple):
    """A validated NewEvent with its payloads already serialized, ready for any backend."""

    type: str
    data_json: str
    metadata_json: str
    event_id: str
    schema_version: int


def check_stream_name(stream: object) -> str:
    if not isinstance(stream, str):
        raise StreamNameError(f"a stream name must be a string, not {type(stream).__name__}")
    if not stream:
        raise StreamNameError("a stream name cannot be empty")
    if len(stream) > MAX_NAME_LENGTH:
        raise StreamNameError(
            f"stream name {stream[:40]!r}... is {len(stream)} characters long "
            f"(at most {MAX_NAME_LENGTH})"
        )
    if not _STREAM_NAME.fullmatch(stream):
        raise StreamNameError(
            f"stream name {stream!r} is not allowed: use letters, digits and _ . : @ / + = -, "
            "starting with a letter or digit"
        )
    return stream


def check_expected_version(expected_version: object) -> int:
    if isinstance(expected_version, bool) or not isinstance(expected_version, int):
        raise InvalidEventError(
            f"expected_version must be an int, NO_STREAM or ANY, not {expected_version!r}"
        )
    if expected_version < ANY:
        raise InvalidEventError(
            f"expected_version {expected_version} is invalid: use a version >= 0, NO_STREAM or ANY"
        )
    return expected_version


def prepare(event: object, max_event_bytes: int) -> PreparedEvent:
    """Validate one event and serialize its payloads, or raise a readable error."""
    if not isinstance(event, NewEvent):
        raise InvalidEventError(f"append takes NewEvent objects, not {type(event).__name__}")
    if not isinstance(event.type, str) or not _EVENT_TYPE.fullmatch(event.type):
        raise InvalidEventError(
            f"event type {event.type!r} is not allowed: use an identifier such as 'CardMoved'"
        )
    if len(event.type) > MAX_NAME_LENGTH:
        raise InvalidEventError(f"event type is longer than {MAX_NAME_LENGTH} characters")
    if (
        not isinstance(event.event_id, str)
        or len(event.event_id) > MAX_NAME_LENGTH
        or not _EVENT_ID.fullmatch(event.event_id)
    ):
        raise InvalidEventError(
            f"event id {event.event_id!r} is not allowed: use 1 to {MAX_NAME_LENGTH} printable "
            "ASCII characters without spaces"
        )
    version = event.schema_version
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise InvalidEventError(f"schema_version must be an int >= 1, not {version!r}")
    data_json = to_json(event.data, event.type, "data")
    metadata = event.metadata
    # Most events carry no metadata: skip the encoder for the empty dict.
    metadata_json = (
        "{}"
        if type(metadata) is dict and not metadata
        else to_json(metadata, event.type, "metadata")
    )
    size = len(data_json) + len(metadata_json)
    # A str's length is a lower bound of its UTF-8 size; only encode when it could matter.
    if size * 4 > max_event_bytes:
        size = len(data_json.encode()) + len(metadata_json.encode())
        if size > max_event_bytes:
            raise EventTooLargeError(
                f"event {event.type} ({event.event_id}) is {size} bytes of JSON; "
                f"the limit is {max_event_bytes} bytes per event"
            )
    return PreparedEvent(event.type, data_json, metadata_json, event.event_id, version)


def _refuse(value: object) -> Any:
    raise TypeError(f"{type(value).__name__} is not JSON-able")


# One encoder for every event: json.dumps with options would build a new encoder per call.
_ENCODER = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=_refuse
)
_CONTAINERS = (dict, list, tuple)


def to_json(payload: object, owner: str, part: str = "") -> str:
    """Serialize a JSON object, refusing anything that would not read back the same way
    (non-str keys, NaN, sets, arbitrary objects) with the path of the offending value, which
    starts at `owner.part` (e.g. "CardMoved.data")."""
    if type(payload) is not dict:
        if not isinstance(payload, Mapping):
            raise SerializationError(
                f"{_where(owner, part)} must be a JSON object (a dict), not {_kind(payload)}"
            )
        payload = dict(payload)
    # Fast path: the C encoder refuses bad values; only non-str keys (which it would silently
    # turn into strings) need a look of our own. On any doubt, the slow walk names the culprit.
    try:
        if _str_keys_only(payload):
            return _ENCODER.encode(payload)
    except (TypeError, ValueError, RecursionError):
        pass
    where = _where(owner, part)
    _check_json(payload, where)
    raise SerializationError(f"{where} cannot be stored as JSON")  # pragma: no cover


def _where(owner: str, part: str) -> str:
    return f"{owner}.{part}" if part else owner


def _str_keys_only(value: Any) -> bool:
    if type(value) is dict:
        for key, item in value.items():
            if type(key) is not str and not isinstance(key, str):
                return False
            if type(item) in _CONTAINERS and not _str_keys_only(item):
                return False
    else:
        for item in value:
            if type(item) in _CONTAINERS and not _str_keys_only(item):
                return False
    return True


def _check_json(value: object, path: str, depth: int = 0) -> None:
    if depth > 100:
        raise SerializationError(f"{path} is nested more than 100 levels deep (a cycle?)")
    if value is None or isinstance(value, (str, bool, int)):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise SerializationError(f"{path} is {value}, which JSON cannot represent")
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise SerializationError(
                    f"{path} has a key {key!r} of type {type(key).__name__}; JSON keys are strings"
                )
            _check_json(item, f"{path}.{key}", depth + 1)
        return
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            _check_json(item, f"{path}[{index}]", depth + 1)
        return
    raise SerializationError(f"{path} is {_kind(value)}, which is not JSON-able")


def _kind(value: object) -> str:
    text = repr(value)
    if len(text) > 40:
        text = text[:37] + "..."
    return f"a {type(value).__name__} ({text})"
