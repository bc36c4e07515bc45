"""People's names: how a name typed by a player, or read from a record, is normalised and checked,
and when two names are one.

A name is normalised to NFC with the surrounding white space removed, and refused (`NameRefused`,
whose `rule` says why) when it is empty or white space only, longer than `MAX_NAME` characters,
or holds a character that cannot be seen for what it is: a control character (NUL, CR, LF, TAB,
any of category Cc, and the line and paragraph separators), a bidirectional override, embedding,
isolate or mark (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C), or an invisible one
(zero-width space, joiners, word joiner, byte order mark, soft hyphen...). A lone surrogate is
refused too: no store can write it. So is any other Default_Ignorable_Code_Point (Unicode's
DerivedCoreProperties: variation selectors, tag characters, U+17B4, U+180B…), any other format
character (category Cf: U+FFF9…), a private-use character (Co), an unassigned code point or
noncharacter (Cn), and a name with no letter or digit at all (a lone U+2800 BRAILLE PATTERN
BLANK, combining marks alone): each can make two names look one, or a name look like none.

These are the rules the domain can check with the standard library alone (it imports nothing
else: docs/architecture.md). Where a name comes in — the lobby's and tournaments' schemas and the
records (`records.fields.nickname`) — it is also enforced by RFC 8266's Nickname profile
(PRECIS, the precis-i18n package) after these rules: NFKC, non-ASCII spaces mapped to one space.

Two names are one when their *skeletons* are equal (Unicode TR39 §4, "confusable detection"):
the skeleton of a string is its NFD form without its default-ignorable and format characters,
with each character replaced by its prototype, put in NFD again. The prototypes here are
those of the Unicode confusables table (confusables.txt) for the letters a Latin name can be
spoofed with: the Cyrillic and Greek look-alikes of Latin letters,
`I`/`1`/`|` read as `l`, `0` as `O`, `rn` for `m`, and the styled letters (fullwidth,
mathematical bold, italic, ...) as the letter itself. So `Ann`, Cyrillic `Аnn` and `𝐀nn` are one
name, `Ann` and `ann` two (TR39 skeletons keep case). The table is small on purpose and tested
(tests/unit/domain/test_names.py); a character it does not know is its own prototype.
"""

from __future__ import annotations

import unicodedata
from typing import Final

MAX_NAME: Final = 40

# The rules, as `NameRefused.rule` names them (docs/protocol.md § names).
EMPTY, TOO_LONG, CONTROL, BIDI, INVISIBLE, SURROGATE = (
    "empty",
    "too_long",
    "control",
    "bidi",
    "invisible",
    "surrogate",
)
IGNORABLE, FORMAT, PRIVATE_USE, UNASSIGNED, NO_LETTER = (
    "ignorable",
    "format",
    "private_use",
    "unassigned",
    "no_letter",
)
# What RFC 8266's Nickname profile refuses beyond these (records.fields.nickname).
DISALLOWED = "disallowed"

# Default_Ignorable_Code_Point (DerivedCoreProperties.txt, Unicode 15.1): `unicodedata` does not
# have the property. First and last code point of each range.
_DEFAULT_IGNORABLE: Final = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
    (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)  # fmt: skip


def default_ignorable(char: str) -> bool:
    """Whether `char` is a Default_Ignorable_Code_Point (drawn as nothing where unsupported)."""
    code = ord(char)
    return any(first <= code <= last for first, last in _DEFAULT_IGNORABLE)


def _unseen(char: str) -> bool:
    """Dropped before two names are compared: default-ignorable and format characters."""
    return default_ignorable(char) or unicodedata.category(char) == "Cf"


_BIDI: Final = frozenset(
    [*map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A)), "\u200e", "\u200f"]
    + ["\u061c"]
)
_INVISIBLE: Final = frozenset(
    [*map(chr, range(0x200B, 0x200E)), *map(chr, range(0x2060, 0x2065))]
    + ["\ufeff", "\u00ad", "\u180e", "\u034f", "\u115f", "\u1160", "\u3164", "\uffa0"]
)
_LINE_BREAKS: Final = frozenset(["\u2028", "\u2029"])


class NameRefused(ValueError):
    """A name that cannot be used; `rule` is one of the rule names above, `message` a sentence."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message


_CONTROL_NAMES: Final = {"\0": "NUL", "\t": "TAB", "\n": "LINE FEED", "\r": "CARRIAGE RETURN"}


def named_char(char: str) -> str:
    """`U+17B4 KHMER VOWEL INHERENT AQ`: a character as a refusal names it."""
    return _named(char)


def _named(char: str) -> str:
    name = unicodedata.name(char, "") or _CONTROL_NAMES.get(char, "")
    return f"U+{ord(char):04X}" + (f" {name}" if name else "")


def normal_name(text: str, max_length: int = MAX_NAME, what: str = "A name") -> str:
    """`text` as a name: NFC, without surrounding white space; NameRefused if it breaks a rule."""
    for char in text:
        if 0xD800 <= ord(char) <= 0xDFFF:
            raise NameRefused(SURROGATE, f"{what} is not valid Unicode text (a lone surrogate).")
    name = unicodedata.normalize("NFC", text)
    for char in name:
        if unicodedata.category(char) == "Cc" or char in _LINE_BREAKS:
            raise NameRefused(
                CONTROL, f"{what} may not contain a control character ({_named(char)})."
            )
        if char in _BIDI:
            raise NameRefused(
                BIDI, f"{what} may not contain a bidirectional control ({_named(char)})."
            )
        if char in _INVISIBLE:
            raise NameRefused(
                INVISIBLE, f"{what} may not contain an invisible character ({_named(char)})."
            )
        _check_seen(char, what)
    name = name.strip()
    if not name:
        raise NameRefused(EMPTY, f"{what} may not be empty or only white space.")
    if len(name) > max_length:
        raise NameRefused(
            TOO_LONG, f"{what} is at most {max_length} characters (this one has {len(name)})."
        )
    if not any(unicodedata.category(char)[0] in "LN" for char in name):
        raise NameRefused(NO_LETTER, f"{what} must hold at least one letter or digit.")
    return name


def _check_seen(char: str, what: str) -> None:
    """Refuse a character that is drawn as nothing, or as whatever a font chooses."""
    if default_ignorable(char):
        raise NameRefused(
            IGNORABLE, f"{what} may not contain a default-ignorable character ({_named(char)})."
        )
    category = unicodedata.category(char)
    if category == "Cf":
        raise NameRefused(FORMAT, f"{what} may not contain a format character ({_named(char)}).")
    if category == "Co":
        raise NameRefused(
            PRIVATE_USE, f"{what} may not contain a private-use character ({_named(char)})."
        )
    if category == "Cn":
        raise NameRefused(
            UNASSIGNED, f"{what} may not contain an unassigned code point ({_named(char)})."
        )


# Prototypes from confusables.txt (Unicode 15.1): character -> what it is taken for.
_PROTOTYPES: Final[dict[str, str]] = {
    # Cyrillic capitals
    "А": "A", "В": "B", "С": "C", "Е": "E", "Н": "H", "І": "l", "Ј": "J", "К": "K",
    "М": "M", "О": "O", "Р": "P", "Ѕ": "S", "Т": "T", "Х": "X", "Ү": "Y",
    "Ԝ": "W", "Ӏ": "l", "Ԍ": "G",
    # Cyrillic small letters
    "а": "a", "с": "c", "ԁ": "d", "е": "e", "һ": "h", "і": "i", "ј": "j", "о": "o",
    "р": "p", "ԛ": "q", "ѕ": "s", "у": "y", "х": "x", "ԝ": "w", "ӏ": "l", "ү": "y",
    "ɡ": "g",
    # Greek capitals
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "l", "Κ": "K", "Μ": "M",
    "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "Ϲ": "C", "Ϳ": "J",
    # Greek small letters
    "α": "a", "ι": "i", "ν": "v", "ο": "o", "ρ": "p", "σ": "o", "υ": "u", "γ": "y",
    "ϲ": "c", "ϳ": "j",
    # Latin and common look-alikes
    "I": "l", "1": "l", "|": "l", "ǀ": "l", "ℓ": "l", "0": "O", "ı": "i", "ɑ": "a",
    "m": "rn", "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2212": "-",
    "\u02bc": "'", "\u2019": "'", "\u2018": "'", "`": "'", "\u00b4": "'",
}  # fmt: skip


def _prototype(char: str) -> str:
    known = _PROTOTYPES.get(char)
    if known is not None:
        return known
    decomposition = unicodedata.decomposition(char)
    # Styled letters and digits (fullwidth Ａ, mathematical 𝐀, 𝔄, ...) are the letter itself.
    if decomposition.startswith(("<font>", "<wide>", "<narrow>")):
        plain = unicodedata.normalize("NFKC", char)
        return "".join(_PROTOTYPES.get(c, c) for c in plain)
    return char


def skeleton(text: str) -> str:
    """The TR39 skeleton of `text`: two names are one when their skeletons are equal. Invisible,
    bidirectional, default-ignorable and format characters are dropped first (a name holding
    one is refused anyway; one stored before it was, `Ann` + U+17B4, is `Ann`)."""
    decomposed = unicodedata.normalize("NFD", text)
    mapped = "".join(
        _prototype(char)
        for char in decomposed
        if char not in _INVISIBLE and char not in _BIDI and not _unseen(char)
    )
    return unicodedata.normalize("NFD", mapped)


def same_name(a: str, b: str) -> bool:
    """Whether `a` and `b` are one name (equal skeletons)."""
    return a == b or skeleton(a) == skeleton(b)
