"""Marshmallow fields shared by the record schemas and the server's inbound schemas."""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields
from precis_i18n import get_profile

from domain.names import DISALLOWED, MAX_NAME, NameRefused, named_char, normal_name

# RFC 8266's Nickname profile, keeping case (PRECIS, RFC 8264): what a display name is, by a
# standard. The domain checks its own rules with the standard library alone (domain/names.py,
# docs/architecture.md: the domain imports no third-party package but networkx, in one file), so
# this step is taken here, where every name comes in: the server's schemas and the records'
# both load names with `Name`.
_NICKNAME = get_profile("NicknameCasePreserved")


def nickname(text: str, max_length: int = MAX_NAME, what: str = "A name") -> str:
    """`text` as a display name: the domain's rules (domain.names.normal_name, each refusal
    naming its rule), then RFC 8266's Nickname profile (NFKC, every space one U+0020, none
    around; `NameRefused` with the rule `disallowed` for what the profile refuses beyond them),
    then the domain's rules again on what the profile made of it (NFKC may lengthen a name)."""
    name = normal_name(text, max_length, what)
    try:
        enforced = _NICKNAME.enforce(name)
    except UnicodeEncodeError as exc:
        shown = named_char(name[exc.start]) if 0 <= exc.start < len(name) else "a character"
        reason = str(exc.reason).removeprefix("DISALLOWED/")
        raise NameRefused(
            DISALLOWED, f"{what} may not contain {shown} (RFC 8266's Nickname profile: {reason})."
        ) from None
    return normal_name(enforced, max_length, what)


class Name(fields.String):
    """A person's name (`nickname`): loaded by RFC 8266's Nickname profile without surrounding
    white space, refused with the rule it breaks (control, bidirectional, invisible, ignorable
    or format characters, no letter, empty, too long…)."""

    def __init__(self, max_length: int = MAX_NAME, what: str = "A name", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.max_length = max_length
        self.what = what

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        text = super()._deserialize(value, attr, data, **kwargs)
        try:
            return nickname(text, self.max_length, self.what)
        except NameRefused as exc:
            raise ValidationError(exc.message) from None
