"""People's names (domain.names, issue 28): the rules a name must keep, and the confusable
skeleton (Unicode TR39) that makes `Ann`, `Ann\u200b` and Cyrillic `Аnn` one name."""

from __future__ import annotations

import unicodedata

import pytest

from domain.names import (
    BIDI,
    CONTROL,
    EMPTY,
    INVISIBLE,
    MAX_NAME,
    SURROGATE,
    TOO_LONG,
    NameRefused,
    normal_name,
    same_name,
    skeleton,
)


@pytest.mark.parametrize(
    ("text", "rule", "said"),
    [
        ("Ann\x00", CONTROL, "U+0000 NUL"),
        ("Ann\r\nBob", CONTROL, "U+000D CARRIAGE RETURN"),
        ("Ann\n", CONTROL, "U+000A LINE FEED"),  # not stripped away: refused
        ("A\x1bnn", CONTROL, "U+001B"),
        ("A\x85nn", CONTROL, "U+0085"),
        ("A\u2028nn", CONTROL, "LINE SEPARATOR"),
        ("\u202eAnn", BIDI, "U+202E RIGHT-TO-LEFT OVERRIDE"),
        ("Ann\u202a", BIDI, "U+202A"),
        ("\u2066Ann\u2069", BIDI, "U+2066 LEFT-TO-RIGHT ISOLATE"),
        ("Ann\u200f", BIDI, "RIGHT-TO-LEFT MARK"),
        ("Ann\u200b", INVISIBLE, "U+200B ZERO WIDTH SPACE"),
        ("A\u200cnn", INVISIBLE, "ZERO WIDTH NON-JOINER"),
        ("A\u200dnn", INVISIBLE, "ZERO WIDTH JOINER"),
        ("A\u2060nn", INVISIBLE, "WORD JOINER"),
        ("\ufeffAnn", INVISIBLE, "ZERO WIDTH NO-BREAK SPACE"),
        ("", EMPTY, "empty or only white space"),
        ("   ", EMPTY, "empty or only white space"),
        ("\u3000\u00a0 ", EMPTY, "empty or only white space"),
        ("x" * (MAX_NAME + 1), TOO_LONG, "at most 40 characters (this one has 41)"),
        ("An\ud800n", SURROGATE, "lone surrogate"),
    ],
)
def test_each_refused_name_says_which_rule(text: str, rule: str, said: str) -> None:
    with pytest.raises(NameRefused) as refused:
        normal_name(text)
    assert refused.value.rule == rule
    assert said in refused.value.message and refused.value.message.startswith("A name ")


def test_names_are_nfc_without_surrounding_white_space() -> None:
    decomposed = "E\u0301mile"  # É as E + combining acute
    assert normal_name(f"  {decomposed} ") == "\u00c9mile"
    assert unicodedata.is_normalized("NFC", normal_name(decomposed))
    # The cap is counted after NFC: 40 decomposed É are 80 code points but 40 characters.
    assert normal_name("E\u0301" * 40) == "\u00c9" * 40
    assert normal_name("Jean-Luc O'Brien") == "Jean-Luc O'Brien"
    assert normal_name("李小龍") == "李小龍" and normal_name("Ørjan") == "Ørjan"
    assert normal_name("x" * 80, max_length=80, what="A title") == "x" * 80


def test_the_subject_of_the_message_is_the_callers() -> None:
    with pytest.raises(NameRefused, match=r"^A tournament's name may not be empty"):
        normal_name(" ", what="A tournament's name")


def test_confusable_names_share_a_skeleton() -> None:
    assert same_name("Ann", "\u0410nn")  # Cyrillic А
    assert same_name("Ann", "Ann\u200b")  # refused anyway, and one name with Ann
    assert same_name("Ann", "\u0391nn")  # Greek Α
    assert same_name("Ann", "\U0001d400nn")  # MATHEMATICAL BOLD CAPITAL A
    assert same_name("Ann", "\uff21nn")  # FULLWIDTH A
    assert same_name("paypal", "р\u0430ур\u0430l")  # Cyrillic р а у р а
    assert same_name("Bill", "BiII")  # I and l
    assert same_name("Bill", "Bi11")
    assert same_name("Emma", "Ernrna")  # rn for m
    assert same_name("Olga", "0lga")
    assert same_name("Chloé", "Chloe\u0301")  # NFD and NFC of one name
    assert skeleton("Ann") == skeleton("\u0410nn") == "Ann"


def test_different_names_stay_different() -> None:
    assert not same_name("Ann", "ann")  # TR39 skeletons keep case
    assert not same_name("Ann", "Anne")
    assert not same_name("Ann", "Bob")
    assert not same_name("Lena", "Lenа" + "s")
    assert not same_name("Zoë", "Zoe")  # a diaeresis is seen


def test_every_prototype_is_already_its_own_skeleton() -> None:
    """The table maps to prototypes, never to another entry (TR39: skeletons are idempotent)."""
    from domain.names import _PROTOTYPES

    for char, prototype in _PROTOTYPES.items():
        assert skeleton(skeleton(char)) == skeleton(char), char
        assert all(_PROTOTYPES.get(c, c) == c for c in prototype), char


# Issue 38: what the outside review registered, and the rule that refuses each now.
REVIEW_LIST = [
    ("\u2800", "no_letter"),  # a lone BRAILLE PATTERN BLANK
    ("\u0301\u0302\u0303", "no_letter"),  # combining marks alone
    ("\u0300", "no_letter"),
    ("Ann\u17b4", "ignorable"),  # KHMER VOWEL INHERENT AQ
    ("\u17b4", "ignorable"),
    ("Ann\U000e0041\U000e007f", "ignorable"),  # tag characters
    ("\U000e0001Ann", "ignorable"),
    ("Ann\ufe0f", "ignorable"),  # VARIATION SELECTOR-16
    ("Ann\u180b", "ignorable"),  # MONGOLIAN FREE VARIATION SELECTOR ONE
    ("Ann\ufff9", "format"),  # INTERLINEAR ANNOTATION ANCHOR
    ("Ann\U000110bd", "format"),  # KAITHI NUMBER SIGN (Cf, not default-ignorable)
    ("Ann\ue000", "private_use"),
    ("\U000f0000", "private_use"),
    ("Ann\ufdd0", "unassigned"),  # a noncharacter
    ("!!!", "no_letter"),
    ("\U0001f600", "no_letter"),
]


@pytest.mark.parametrize(("text", "rule"), REVIEW_LIST)
def test_the_reviews_names_are_refused(text: str, rule: str) -> None:
    with pytest.raises(NameRefused) as refused:
        normal_name(text)
    assert refused.value.rule == rule, refused.value.message


def test_a_name_with_a_letter_or_digit_passes() -> None:
    for text in ("Ann", "Zoë", "日本", "\U0001f600 Ann", "7", "O'Brien", "Ann-Lee"):
        assert normal_name(text) == text


def test_ignorable_and_format_characters_are_dropped_before_comparing() -> None:
    """`Ann` + U+17B4 was registered beside `Ann` in one tournament: refused now, and one name
    with `Ann` should one be stored already."""
    assert same_name("Ann", "Ann\u17b4")
    assert same_name("Ann", "A\ufe0fnn")
    assert same_name("Ann", "Ann\U000e0041")
    assert same_name("Ann", "An\ufff9n")
    assert not same_name("Ann", "Anna")
