"""records.fields.nickname (issue 38): the domain's name rules, then RFC 8266's Nickname profile
(precis-i18n), where every name comes in (the server's schemas and the records both use it)."""

from __future__ import annotations

import pytest

from domain.names import DISALLOWED, IGNORABLE, NO_LETTER, TOO_LONG, NameRefused
from records.fields import nickname


@pytest.mark.parametrize(
    ("text", "stored"),
    [
        ("Ann", "Ann"),
        ("  Ann   Lee ", "Ann Lee"),  # spaces inside are one
        ("Ann\u00a0Lee", "Ann Lee"),  # a non-ASCII space is U+0020
        ("Ann\u3000Lee", "Ann Lee"),
        ("\U0001d400nn", "Ann"),  # NFKC: a styled letter is the letter
        ("\uff21nn", "Ann"),
        ("\ufb01ona", "fiona"),  # the ligature is two letters
        ("Chloe\u0301", "Chloé"),
        ("Zoë", "Zoë"),
        ("ann", "ann"),  # case is kept (NicknameCasePreserved)
    ],
)
def test_a_name_is_stored_as_the_profile_makes_it(text: str, stored: str) -> None:
    assert nickname(text) == stored


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("A\u1100", DISALLOWED),  # old Hangul jamo: the profile's own refusal
        ("Ann\u17b4", IGNORABLE),  # the domain's rule, named as such
        ("\u2800", NO_LETTER),
        ("\ufdfa" * 3, TOO_LONG),  # NFKC made 3 characters 54: too long after the profile
    ],
)
def test_refusals_name_their_rule(text: str, rule: str) -> None:
    with pytest.raises(NameRefused) as refused:
        nickname(text)
    assert refused.value.rule == rule, refused.value.message
    assert len(refused.value.message) < 200


def test_the_profile_refusal_names_the_character() -> None:
    with pytest.raises(NameRefused, match="U\\+1100 HANGUL CHOSEONG KIYEOK"):
        nickname("A\u1100")
