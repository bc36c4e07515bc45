"""Marshmallow fields shared by the record schemas and the server's inbound schemas."""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields

from domain.names import MAX_NAME, NameRefused, normal_name


class Name(fields.String):
    """A person's name (domain.names): loaded in NFC without surrounding white space, refused
    with the rule it breaks (control, bidirectional or invisible characters, empty, too long)."""

    def __init__(self, max_length: int = MAX_NAME, what: str = "A name", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.max_length = max_length
        self.what = what

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        text = super()._deserialize(value, attr, data, **kwargs)
        try:
            return normal_name(text, self.max_length, self.what)
        except NameRefused as exc:
            raise ValidationError(exc.message) from None
