"""The browser says every reason of the domain's closed sets, one word per reason (issue 27).

`web/js/words.js` maps each reason an event may carry (`domain.events.CLOSED_FIELDS`: the
`Literal` types `TurnEndReason`, `WinReason`, `StalemateReason`) to one catalogue key. Checked
both ways: every member has a key, and a word in every language; no key is given for a reason the
domain does not have, and no catalogue holds a word (`turn_end.*`, `reason.*`) that no reason uses.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from domain.events import CLOSED_FIELDS, EVENT_TYPES
from server.wire import languages

WEB = Path(__file__).resolve().parents[3] / "web"
# Words of the same families that name no event reason: a resignation (GameResigned has no
# reason; the result's kind says it).
OTHER_WORDS = {"reason.resigned"}


def reason_keys() -> dict[str, dict[str, str]]:
    text = (WEB / "js" / "words.js").read_text(encoding="utf-8")
    found = re.search(
        r"// reason keys: begin\n(?:const REASON_KEYS = )(.*?);\n// reason keys: end", text, re.S
    )
    assert found, "words.js lost its REASON_KEYS table"
    table = json.loads(found.group(1))
    assert isinstance(table, dict)
    return table


def catalogue(lang: str) -> dict[str, object]:
    data = json.loads((WEB / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def domain_reasons() -> dict[str, frozenset[str | None]]:
    return {
        cls.__name__: fields["reason"]
        for cls, fields in CLOSED_FIELDS.items()
        if "reason" in fields
    }


def test_a_discard_by_the_server_is_said_with_the_turn_end_words() -> None:
    # words.js: `log.discarded_auto` says `CardDiscarded.auto` with turnEndWords.
    autos = {cls.__name__: f["auto"] for cls, f in CLOSED_FIELDS.items() if "auto" in f}
    assert set(autos) == {"CardDiscarded"}
    assert autos["CardDiscarded"] - {None} <= set(reason_keys()["TurnEnded"])


def test_the_closed_sets_are_the_reason_fields_of_the_events() -> None:
    assert set(domain_reasons()) == {"TurnEnded", "GameWon", "GameStalemated"}
    for name in domain_reasons():
        assert name in EVENT_TYPES


def test_every_reason_has_one_key_and_no_key_names_another_reason() -> None:
    table = reason_keys()
    assert {name: set(keys) for name, keys in table.items()} == {
        name: set(members) for name, members in domain_reasons().items()
    }
    keys = [key for per_event in table.values() for key in per_event.values()]
    assert len(keys) == len(set(keys)), "two reasons share a word"


@pytest.mark.parametrize("lang", sorted(languages.LANGUAGES))
def test_every_reason_has_a_word_in_every_language_and_no_other_word_exists(lang: str) -> None:
    words = catalogue(lang)
    keys = {key for per_event in reason_keys().values() for key in per_event.values()}
    missing = sorted(key for key in keys if not words.get(key))
    assert missing == [], f"{lang}: no word for {missing}"
    families = {key for key in words if key.startswith(("turn_end.", "reason."))}
    assert families - OTHER_WORDS == keys, f"{lang}: words for no reason: {families - keys}"
