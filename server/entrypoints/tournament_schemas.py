"""The tournament bodies a client may send, validated before they reach the service (as
server/entrypoints/schemas.py does for the lobby): anything else is a structured `invalid` error."""

from __future__ import annotations

from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema

from domain.bots import BOT_NAMES
from domain.tournament import FORMATS, MAX_NAME, MAX_PLAYERS, MAX_TITLE
from records.fields import Name
from server.model.tables import BOT_PACES, DEFAULT_BOT_PACE

_TOKEN = validate.Length(min=8, max=128)
ORDERS = ("start", "withdraw", "no_show", "finish", "release")


class _Strict(Schema):
    class Meta:
        unknown = RAISE


class PlayerSchema(_Strict):
    name = Name(required=True, max_length=MAX_NAME)
    bot = fields.String(load_default=None, allow_none=True, validate=validate.OneOf(BOT_NAMES))


class CreateTournamentSchema(_Strict):
    name = Name(required=True, max_length=MAX_TITLE, what="A tournament's name")
    format = fields.String(required=True, validate=validate.OneOf(FORMATS))
    rounds = fields.Integer(load_default=None, allow_none=True, strict=True)
    preset = fields.String(load_default="classic", validate=validate.Length(min=1, max=40))
    match = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=40))
    players = fields.List(
        fields.Nested(PlayerSchema), required=True, validate=validate.Length(min=2, max=MAX_PLAYERS)
    )
    bot_pace = fields.String(
        load_default=DEFAULT_BOT_PACE, validate=validate.OneOf(list(BOT_PACES))
    )


class NameClaimSchema(_Strict):
    """A tournament player's name, claimed to get his player token."""

    name = Name(required=True, max_length=MAX_NAME)


class MeSchema(_Strict):
    player_token = fields.String(required=True, validate=_TOKEN)


class DirectSchema(_Strict):
    director_token = fields.String(required=True, validate=_TOKEN)
    action = fields.String(required=True, validate=validate.OneOf(ORDERS))
    name = Name(load_default=None, allow_none=True, max_length=MAX_NAME)
    match_id = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=80))
    absent = fields.List(Name(max_length=MAX_NAME), load_default=None, allow_none=True)

    @validates_schema
    def _arguments(self, data: dict[str, object], **_kwargs: object) -> None:
        """Each order with what it needs: a name to withdraw or release, a table and who did
        not come for a no-show."""
        action = data["action"]
        if action in ("withdraw", "release") and not data.get("name"):
            raise ValidationError(f"{action} names the player.", "name")
        if action == "no_show" and not (data.get("match_id") and data.get("absent")):
            raise ValidationError("no_show names the table and who did not come.", "absent")


CREATE = CreateTournamentSchema()
NAME_CLAIM = NameClaimSchema()
ME = MeSchema()
DIRECT = DirectSchema()
