"""Marshmallow schemas of the `crapette-record/1` JSON form (docs/spec/records.md §3,
docs/records.md).

They check the *shape* of a record (types, card and pile spellings, lengths); whether the actions
and decisions are right is the verifier's job, done by the engine itself. Field names are the JSON
keys, so a loaded record is the same plain dict as the file (`from` is a Python keyword, hence the
`locals()` spelling in two schemas).
"""

from __future__ import annotations

import re
from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema

from domain import ACTION_NAMES
from domain.errors import quote
from records.errors import RecordFormatError
from records.fields import Name

FORMAT = "crapette-record/1"
ALGORITHM = "sha256-fy/1"

CARD_CODE = re.compile(r"^[A2-9TJQK][SHDC]$")
CARD = re.compile(r"^[A2-9TJQK][SHDC](/[01])?$")
# Q0 Q1: the second reserves, I0 I1 J0 J1 the second and third hands of the Italian variants
# (docs/spec/rules.md §10).
PILE = re.compile(r"^(R[01]|Q[01]|H[01]|I[01]|J[01]|X[01]|W[01]|T[0-7]|F[0-7])$")
HAND = re.compile(r"^[HIJ][01]$")
MOVE_TEXT = re.compile(
    r"^(R[01]|Q[01]|H[01]|I[01]|J[01]|X[01]|W[01]|T[0-7]|F[0-7])-(R[01]|Q[01]|W[01]|T[0-7]|F[0-7])$"
)
VOIDED = re.compile(r"^[a-z][a-z-]*( [A-Za-z0-9/-]+)*$")
HEX64 = re.compile(r"^[0-9a-f]{64}$")

# The `do` values of docs/spec/records.md §2 plus the server's time-out (an action the server
# issues for the player to move when his clock runs out): the domain's own list.
DOINGS = ACTION_NAMES
OUTCOMES = ("win", "stalemate", "resign")


def _seat() -> fields.Integer:
    return fields.Integer(strict=True, required=True, validate=validate.OneOf([0, 1]))


def _pair() -> fields.List[int]:
    return fields.List(fields.Integer(strict=True), validate=validate.Length(equal=2))


def _card(**kwargs: Any) -> fields.String:
    return fields.String(validate=validate.Regexp(CARD, error="not a card: {input}"), **kwargs)


def _pile(**kwargs: Any) -> fields.String:
    return fields.String(validate=validate.Regexp(PILE, error="not a pile: {input}"), **kwargs)


class _Strict(Schema):
    class Meta:
        unknown = RAISE


class MoveSchema(_Strict):
    """A move the server played itself (the compulsory move after a right call)."""

    locals()["from"] = _pile(required=True)
    to = _pile(required=True)
    card = _card(required=True)


class DiscardSchema(_Strict):
    """X put on the waste by the server (hand card lock, time-out, after a right call)."""

    card = _card(required=True)
    reason = fields.String(required=True)


class TurnEndSchema(_Strict):
    next = _seat()
    reason = fields.String(required=True)


class GameResultSchema(_Strict):
    outcome = fields.String(required=True, validate=validate.OneOf(OUTCOMES))
    winner = fields.Integer(strict=True, allow_none=True, validate=validate.OneOf([0, 1]))
    reason = fields.String(required=True)
    score = _pair()
    penalties = fields.List(
        fields.Integer(strict=True),
        validate=validate.Length(equal=2),
        allow_none=True,
        load_default=None,
    )


class ActionSchema(_Strict):
    """One action as a player (or the server's clock) made it, and what the server decided."""

    seat = _seat()
    do = fields.String(required=True, validate=validate.OneOf(DOINGS))
    locals()["from"] = _pile()
    to = _pile()
    card = _card()
    hand = fields.String(validate=validate.Regexp(HAND, error="not a hand: {input}"))
    # An abandon the server made for an absent seat: the win was claimed (issue 39).
    claimed = fields.Boolean(truthy={True}, falsy={False})
    move = fields.String(
        allow_none=True, validate=validate.Regexp(MOVE_TEXT, error="not a move: {input}")
    )
    ms = fields.Integer(strict=True, required=True, validate=validate.Range(min=0))
    # The server's decisions (for readers; the verifier recomputes every one of them).
    fault = fields.Boolean()
    rule = fields.String()
    recycled = fields.Integer(strict=True, validate=validate.Range(min=0))
    verdict = fields.String(validate=validate.OneOf(["right", "wrong"]))
    penalty = fields.Boolean()
    target = fields.Integer(strict=True, validate=validate.Range(min=1))
    voided = fields.List(
        fields.String(validate=validate.Regexp(VOIDED, error="not an undone step: {input}"))
    )
    compulsory = fields.Nested(MoveSchema)
    discarded = fields.Nested(DiscardSchema)
    turn_end = fields.List(fields.Nested(TurnEndSchema))

    @validates_schema
    def _pieces(self, data: dict[str, Any], **_: Any) -> None:
        if data["do"] == "move" and not ("from" in data and "to" in data):
            raise ValidationError("a move needs `from` and `to`", "do")
        if data["do"] != "move" and ("from" in data or "to" in data):
            raise ValidationError("only a move has `from` and `to`", "do")
        if "move" in data and data["do"] != "call":
            raise ValidationError("only a call names a `move`", "move")
        if "hand" in data and data["do"] != "turn":
            raise ValidationError("only a turn names a `hand`", "hand")
        if "claimed" in data and data["do"] != "abandon":
            raise ValidationError("only an abandon may be `claimed`", "claimed")


class DealSchema(_Strict):
    """A deal from a seed (`algorithm`, `seed`, `commitment`, `packs`), from explicit packs (only
    `packs`), or of a live game (only `algorithm` and `commitment`: the rest is still secret)."""

    algorithm = fields.String(allow_none=True, validate=validate.OneOf([ALGORITHM]))
    seed = fields.String(
        allow_none=True, validate=validate.Regexp(HEX64, error="a seed is 64 hex digits")
    )
    commitment = fields.String(
        allow_none=True, validate=validate.Regexp(HEX64, error="a commitment is 64 hex digits")
    )
    packs = fields.List(
        fields.List(
            fields.String(validate=validate.Regexp(CARD_CODE, error="not a card code: {input}")),
            validate=validate.Length(equal=52),
        ),
        validate=validate.Length(equal=2),
        allow_none=True,
    )

    @validates_schema
    def _kind(self, data: dict[str, Any], **_: Any) -> None:
        if data.get("seed") and not data.get("algorithm"):
            raise ValidationError("a seed needs its `algorithm`", "algorithm")
        for seat, pack in enumerate(data.get("packs") or []):
            if len(set(pack)) != 52:
                raise ValidationError(f"pack {seat} does not hold 52 different cards", "packs")


class SeatChangeSchema(_Strict):
    """A rotation table's seat change after a won game (docs/spec/rules.md §10)."""

    left = Name(required=True)
    entered = Name(required=True)
    seat = _seat()


def _names() -> fields.List[str]:
    return fields.List(Name(), validate=validate.Length(equal=2))


class GameSchema(_Strict):
    index = fields.Integer(strict=True, required=True, validate=validate.Range(min=0))
    # A rotation table's game: the two people who played it (seat 0, seat 1) and the seat change
    # that followed it (None: nobody moved). Absent from the records of every other table.
    players = _names()
    seat_change = fields.Nested(SeatChangeSchema, allow_none=True)
    started_at_ms = fields.Integer(strict=True, required=True)
    deal = fields.Nested(DealSchema, required=True)
    first_player = _seat()
    first_player_reason = fields.String(required=True)
    actions = fields.List(fields.Nested(ActionSchema), required=True)
    result = fields.Nested(GameResultSchema, allow_none=True, load_default=None)


class PersonSchema(_Strict):
    """A person of a rotation table: his session total and games won."""

    name = Name(required=True)
    total = fields.Integer(strict=True, required=True)
    wins = fields.Integer(strict=True, required=True, validate=validate.Range(min=0))


class MatchResultSchema(_Strict):
    finished = fields.Boolean(required=True)
    winner = fields.Integer(strict=True, allow_none=True, validate=validate.OneOf([0, 1]))
    totals = _pair()
    # A rotation table: the session's winner by name, and everyone's totals in joining order.
    player = Name(allow_none=True)
    people = fields.List(fields.Nested(PersonSchema), validate=validate.Length(min=2, max=4))


class QueueSchema(_Strict):
    """Someone joined (`join`) or left (`leave`) a rotation table's queue: after `after` actions
    of game `game` (`null`: before the first game was dealt), at `at_ms`."""

    do = fields.String(required=True, validate=validate.OneOf(["join", "leave"]))
    name = Name(required=True)
    game = fields.Integer(
        strict=True, required=True, allow_none=True, validate=validate.Range(min=0)
    )
    after = fields.Integer(strict=True, required=True, validate=validate.Range(min=0))
    at_ms = fields.Integer(strict=True, required=True)


# An option's value: a name, a number, or none (e.g. `move_time_limit_s`).
_OPTION = fields.Raw(allow_none=True)


class RecordSchema(_Strict):
    format = fields.String(
        required=True,
        validate=validate.Equal(FORMAT, error=f"this is not a {FORMAT} record"),
    )
    match_id = fields.String(required=True, validate=validate.Length(min=1, max=200))
    preset = fields.String(allow_none=True, load_default=None)
    ruleset = fields.Dict(keys=fields.String(), values=_OPTION, required=True)
    # Names follow the lobby's rules (domain.names): NFC, at most 40 characters, nothing unseen.
    players = fields.List(Name(), required=True, validate=validate.Length(equal=2))
    started_at_ms = fields.Integer(strict=True, required=True)
    live = fields.Boolean(load_default=False)
    result = fields.Nested(MatchResultSchema, required=True)
    queue = fields.List(fields.Nested(QueueSchema))  # a rotation table's comings and goings
    games = fields.List(fields.Nested(GameSchema), required=True)

    @validates_schema
    def _options(self, data: dict[str, Any], **_: Any) -> None:
        for name, value in data.get("ruleset", {}).items():
            if value is not None and not isinstance(value, str | int) or isinstance(value, bool):
                raise ValidationError(
                    f"option {quote(name)}: {quote(value)} is not a name or a number"
                )
            # The text form writes numbers bare and no value as `-`: a name must not read as either.
            if isinstance(value, str) and (value.isdigit() or value == "-" or not value):
                raise ValidationError(f"option {quote(name)}: {quote(value)} is not a name")
        for i, game in enumerate(data.get("games", [])):
            if game["index"] != i:
                raise ValidationError(f"games[{i}] has index {game['index']}", "games")


_SCHEMA = RecordSchema()  # one instance: building the nested schemas costs more than a load


def _first_error(errors: Any, path: str = "") -> str:
    """The first leaf of marshmallow's nested errors, as `games.0.actions.3.card: not a card`."""
    if isinstance(errors, dict):
        key = next(iter(errors))
        sub = f"{path}.{key}" if path else str(key)
        if key == "_schema":
            sub = path
        return _first_error(errors[key], sub)
    if isinstance(errors, list) and errors:
        return _first_error(errors[0], path)
    return f"{path or 'record'}: {errors}"


def load_record(data: object) -> dict[str, Any]:
    """Validate a record's JSON value; raise RecordFormatError naming the first bad field."""
    if not isinstance(data, dict):
        raise RecordFormatError(f"a {FORMAT} record is a JSON object, not {type(data).__name__}")
    try:
        loaded: dict[str, Any] = _SCHEMA.load(data)
    except ValidationError as exc:
        raise RecordFormatError(
            f"not a valid {FORMAT} record: {_first_error(exc.messages)}",
            details=exc.messages if isinstance(exc.messages, dict) else {},
        ) from None
    return loaded


def dump_record(record: dict[str, Any]) -> dict[str, Any]:
    """A record dict in its canonical key order (the order of the schemas), for stable files."""
    dumped: dict[str, Any] = _SCHEMA.dump(record)
    return dumped
