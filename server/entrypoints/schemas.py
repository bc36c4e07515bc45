"""Marshmallow schemas for every inbound payload (REST bodies and Socket.IO messages).

Anything that fails here becomes an `invalid` error with per-field details; nothing unvalidated
reaches the service."""

from __future__ import annotations

import re

from marshmallow import RAISE, Schema, ValidationError, fields, validate

from domain.bots import BOT_NAMES as BOTS
from domain.names import MAX_NAME, NameRefused
from records.fields import Name, nickname
from records.streams import MATCH_ID_PATTERN
from server.errors import InvalidInputError
from server.model.tables import BOT_PACES, DEFAULT_BOT_PACE, MAX_MOVE_TIME_S
from server.services.testbots import TEST_BOTS
from server.wire.payloads import JsonObject


def utf8_text(text: str) -> None:
    """A lone surrogate ("\\ud800" in JSON) reads into a str that no store can write."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValidationError("Not valid Unicode text (a lone surrogate).") from None


def name_rule(value: object, max_length: int = MAX_NAME) -> str | None:
    """The rule of domain.names that `value` breaks (None: a good name, or not a string)."""
    if not isinstance(value, str):
        return None
    try:
        nickname(value, max_length)
    except NameRefused as exc:
        return exc.rule
    return None


_MATCH_ID = validate.Regexp(MATCH_ID_PATTERN, error="Not a match id.")
_TOKEN_MIN, _TOKEN_MAX = 8, 128
_TOKEN = validate.Length(min=_TOKEN_MIN, max=_TOKEN_MAX)
_COMMAND_ID_PATTERN = re.compile(r"^[A-Za-z0-9_-]{8,64}\Z")
_COMMAND_ID = validate.Regexp(_COMMAND_ID_PATTERN, error="8-64 characters of A-Z a-z 0-9 _ -.")
_SEAT = validate.OneOf([0, 1])


class _Strict(Schema):
    class Meta:
        unknown = RAISE


class CreateTableSchema(_Strict):
    name = Name(required=True)
    preset = fields.String(load_default="classic", validate=validate.Length(min=1, max=40))
    options = fields.Dict(keys=fields.String(), load_default=dict)
    match = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=40))
    # Absent: the preset's limit; null: no limit (so the key is left out when absent).
    move_time_limit_s = fields.Integer(
        allow_none=True, strict=True, validate=validate.Range(min=1, max=MAX_MOVE_TIME_S)
    )
    # The test-only bots pass here; the lobby refuses them unless the server runs --test-bots.
    bot = fields.String(
        load_default=None, allow_none=True, validate=validate.OneOf(BOTS + TEST_BOTS)
    )
    seat = fields.Integer(load_default=None, allow_none=True, validate=_SEAT, strict=True)
    bot_pace = fields.String(
        load_default=DEFAULT_BOT_PACE, validate=validate.OneOf(list(BOT_PACES))
    )


class JoinSeatSchema(_Strict):
    name = Name(required=True)
    seat = fields.Integer(load_default=None, allow_none=True, validate=_SEAT, strict=True)
    # A bot for a rotation table's queue (docs/protocol.md, rotation tables); checked by the lobby.
    bot = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=40))
    # Who puts that bot there: the seat token of a person at the table (seated or waiting).
    seat_token = fields.String(load_default=None, allow_none=True, validate=_TOKEN)


class RematchSchema(_Strict):
    seat_token = fields.String(required=True, validate=_TOKEN)
    answer = fields.String(
        load_default="offer", validate=validate.OneOf(["offer", "accept", "decline"])
    )


class JoinTableSchema(_Strict):
    match_id = fields.String(required=True, validate=_MATCH_ID)
    seat_token = fields.String(load_default=None, allow_none=True, validate=_TOKEN)
    last_version = fields.Integer(
        load_default=None, allow_none=True, strict=True, validate=validate.Range(min=0)
    )


class ActionField(fields.Dict):
    """An action object of docs/spec/records.md §2; its content is checked by the domain parser."""


class CommandSchema(_Strict):
    match_id = fields.String(required=True, validate=_MATCH_ID)
    seat_token = fields.String(required=True, validate=_TOKEN)
    command_id = fields.String(required=True, validate=_COMMAND_ID)
    action = ActionField(keys=fields.String(), required=True)


class SeatClaimSchema(_Strict):
    """A claim on an absent opponent's seat: resign it for him, or seat a bot in it."""

    match_id = fields.String(required=True, validate=_MATCH_ID)
    seat_token = fields.String(required=True, validate=_TOKEN)
    what = fields.String(required=True, validate=validate.OneOf(["resign", "bot"]))


class SeatSchema(_Strict):
    """A seat's message about its own seat: `next_game`, `abandon`."""

    match_id = fields.String(required=True, validate=_MATCH_ID)
    seat_token = fields.String(required=True, validate=_TOKEN)


class PracticeSchema(_Strict):
    """Play on from a position of a finished match (docs/protocol.md § practice)."""

    version = fields.Integer(required=True, strict=True, validate=validate.Range(min=1))
    name = Name(required=True)
    seat = fields.Integer(load_default=0, validate=_SEAT, strict=True)
    bot = fields.String(load_default="sharp", validate=validate.OneOf(BOTS + TEST_BOTS))
    bot_pace = fields.String(
        load_default=DEFAULT_BOT_PACE, validate=validate.OneOf(list(BOT_PACES))
    )


class AnalyseSchema(_Strict):
    """The optional body of a request for an analysis (docs/protocol.md § analysis)."""

    depth = fields.String(load_default=None, validate=validate.Length(max=10))


class TrySchema(_Strict):
    """A try at a better move in the learning mode (docs/protocol.md § analysis)."""

    version = fields.Integer(required=True, strict=True, validate=validate.Range(min=0))
    action = ActionField(keys=fields.String(), required=True)


class LeaveTableSchema(_Strict):
    match_id = fields.String(required=True, validate=_MATCH_ID)


# One instance of each: building a schema binds every field (costly); loading is reentrant.
CREATE_TABLE = CreateTableSchema()
JOIN_SEAT = JoinSeatSchema()
REMATCH = RematchSchema()
JOIN_TABLE = JoinTableSchema()
COMMAND = CommandSchema()
SEAT_CLAIM = SeatClaimSchema()
SEAT = SeatSchema()
LEAVE_TABLE = LeaveTableSchema()
PRACTICE = PracticeSchema()
TRY = TrySchema()
ANALYSE = AnalyseSchema()


def load(schema: Schema, payload: object) -> JsonObject:
    """Validate `payload`; raise InvalidInputError with marshmallow's per-field messages."""
    if not isinstance(payload, dict):
        raise InvalidInputError("Expected a JSON object.", details={"_schema": ["Not an object."]})
    try:
        result: JsonObject = schema.load(payload)
    except ValidationError as exc:
        messages = exc.messages if isinstance(exc.messages, dict) else {"_schema": exc.messages}
        refused = _refused_name(schema, payload, messages)
        if refused is not None:  # a refused name says which rule it breaks (docs/protocol.md)
            path, rule, message = refused
            raise InvalidInputError(f"{path}: {message}", details=messages, rule=rule) from None
        raise InvalidInputError("The message is malformed.", details=messages) from None
    return result


def _refused_name(
    schema: Schema, payload: object, messages: object, path: str = ""
) -> tuple[str, str, str] | None:
    """The first refused `Name` among marshmallow's messages, also in nested schemas and lists
    (a tournament's `players.1.name`): its path, rule and message."""
    if not isinstance(messages, dict) or not isinstance(payload, dict):
        return None
    for key, errors in messages.items():
        field = schema.fields.get(key) if isinstance(key, str) else None
        found = _refused_in(field, payload.get(key), errors, f"{path}{key}")
        if found is not None:
            return found
    return None


def _refused_in(
    field: object, value: object, errors: object, path: str
) -> tuple[str, str, str] | None:
    if isinstance(field, Name):
        rule = name_rule(value, field.max_length)
        if rule is None:
            return None
        while isinstance(errors, list) and errors:
            errors = errors[0]
        return path, rule, str(errors)
    if isinstance(field, fields.Nested) and isinstance(field.schema, Schema):
        return _refused_name(field.schema, value, errors, f"{path}.")
    if isinstance(field, fields.List) and isinstance(errors, dict) and isinstance(value, list):
        for index, inner in errors.items():
            if isinstance(index, int) and 0 <= index < len(value):
                found = _refused_in(field.inner, value[index], inner, f"{path}.{index}")
                if found is not None:
                    return found
    return None


_COMMAND_KEYS = frozenset(COMMAND.fields)


def well_formed_command(payload: object) -> JsonObject | None:
    """What COMMAND.load returns for a command whose every field is plainly valid, checked by
    the same patterns without marshmallow's machinery (marshmallow took ~5% of the server's time
    under load); None for anything else, which `load_command` hands to marshmallow for its
    per-field errors. It accepts only what COMMAND accepts, with the same result
    (tests/unit/server/runtime/test_server_fastpaths.py checks both)."""
    if type(payload) is not dict or payload.keys() != _COMMAND_KEYS:
        return None
    match_id, token = payload["match_id"], payload["seat_token"]
    command_id, action = payload["command_id"], payload["action"]
    if not (
        type(match_id) is str
        and type(token) is str
        and type(command_id) is str
        and type(action) is dict
        and MATCH_ID_PATTERN.match(match_id) is not None
        and _TOKEN_MIN <= len(token) <= _TOKEN_MAX
        and _COMMAND_ID_PATTERN.match(command_id) is not None
        and all(type(key) is str for key in action)
    ):
        return None
    return {
        "match_id": match_id,
        "seat_token": token,
        "command_id": command_id,
        "action": dict(action),
    }


def load_command(payload: object) -> JsonObject:
    """`load(COMMAND, payload)`, quicker for the well-formed commands that are nearly all."""
    return well_formed_command(payload) or load(COMMAND, payload)
