"""The browser client's message catalogues (`web/i18n/<lang>.json`, issue 19): every key of the
English catalogue exists in every language and no other key does, each message keeps the same
named placeholders, plural forms are Intl.PluralRules categories with an "other", and every word
the server names by a code (options, values, presets, bots) has a message."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from domain import PRESETS
from domain.bots import BOT_NAMES
from server.wire import languages
from server.wire.ruleset_help import OPTIONS

WEB = Path(__file__).resolve().parents[3] / "web"
PLURAL_FORMS = {"zero", "one", "two", "few", "many", "other"}
PLACEHOLDER = re.compile(r"\{(\w+)\}")

Message = str | dict[str, str]


def catalogue(lang: str) -> dict[str, Message]:
    data = json.loads((WEB / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def placeholders(message: Message) -> set[str]:
    forms = message.values() if isinstance(message, dict) else [message]
    return {name for form in forms for name in PLACEHOLDER.findall(form)}


def test_the_catalogues_are_the_server_s_languages() -> None:
    files = sorted(path.stem for path in (WEB / "i18n").glob("*.json"))
    assert files == sorted(languages.LANGUAGES)
    js = (WEB / "js" / "i18n.js").read_text(encoding="utf-8")
    listed = re.search(r"export const LANGUAGES = \[(.*?)\];", js)
    assert listed and re.findall(r'"(\w+)"', listed[1]) == list(languages.LANGUAGES)


@pytest.mark.parametrize("lang", [lang for lang in languages.LANGUAGES if lang != "en"])
def test_every_key_in_every_language_with_the_same_placeholders(lang: str) -> None:
    english, other = catalogue("en"), catalogue(lang)
    assert sorted(set(english) - set(other)) == [], f"{lang} lacks these"
    assert sorted(set(other) - set(english)) == [], f"{lang} has keys English lacks"
    for key, message in english.items():
        assert placeholders(other[key]) == placeholders(message), (lang, key)


@pytest.mark.parametrize("lang", languages.LANGUAGES)
def test_messages_are_text_or_plural_forms(lang: str) -> None:
    for key, message in catalogue(lang).items():
        if isinstance(message, dict):
            assert set(message) <= PLURAL_FORMS and "other" in message, (lang, key)
            assert all(isinstance(form, str) and form.strip() for form in message.values())
            assert "count" in placeholders(message), (lang, key)
        else:
            assert isinstance(message, str) and message.strip(), (lang, key)
            # A placeholder is a name in braces, nothing else: a stray brace is a typo.
            assert PLACEHOLDER.sub("", message).count("{") == 0, (lang, key)


def test_plural_where_english_has_plural() -> None:
    english = catalogue("en")
    for lang in languages.LANGUAGES:
        for key, message in catalogue(lang).items():
            assert isinstance(message, dict) == isinstance(english[key], dict), (lang, key)


def test_every_option_value_preset_and_bot_the_server_names_has_words() -> None:
    english = catalogue("en")
    wanted = {"language.name", "language.switch"}
    for option in OPTIONS:
        wanted |= {f"option.{option.name}.label", f"option.{option.name}.help"}
        # A value's key is its JSON text ("points:300", "10", "null"), as web/js/ruleset_words.js
        # builds it.
        wanted |= {f"option.{option.name}.value.{_key(value)}" for value, _label in option.values}
    wanted |= {f"preset.{name}.description" for name in PRESETS}
    wanted |= {f"bot.{name}.description" for name in BOT_NAMES}
    assert sorted(wanted - set(english)) == []


def _key(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def test_the_call_is_each_rule_text_s_own_word() -> None:
    calls = {
        "en": "Crapette!",
        "fr": "Crapette !",
        "it": "Sosta!",
        "fi": "Seis!",
        "da": "Crapette!",
    }
    for lang, call in calls.items():
        assert catalogue(lang)["call.word"] == call, lang


def _reasons_the_rules_give() -> set[str]:
    """Every `reason` a RulesError of the domain can carry: its third argument where given, else
    its rule made a word (as domain/errors.py does), read from the source; the priority rules
    through their constants."""
    import ast

    import domain.priority

    domain_dir = Path(domain.__file__).parent
    reasons: set[str] = set()
    for path in domain_dir.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "RulesError"):
                continue
            args = [a.value if isinstance(a, ast.Constant) else None for a in node.args]
            if len(args) >= 3 and isinstance(args[2], str):
                reasons.add(args[2])
            elif args and isinstance(args[0], str):
                reasons.add(domain.RulesError(args[0], "").reason)
    for rule in domain.priority.MESSAGES:
        reasons.add(domain.RulesError(rule, "").reason)
    return reasons


def test_every_refusal_the_rules_give_has_words() -> None:
    english = catalogue("en")
    reasons = _reasons_the_rules_give()
    assert {"house_down_one", "not_your_turn", "priority_foundation_first"} <= reasons
    assert sorted(r for r in reasons if f"refusal.{r}" not in english) == []
    # A fault or a right call names its priority rule: each has a short name too.
    import domain.priority

    for rule in domain.priority.MESSAGES:
        assert f"rule.{domain.RulesError(rule, '').reason}" in english, rule


# The word for "four" in each language: the lobby's tagline names the table sizes, two to four
# people (rotation tables, docs/spec/rules.md §10), not "for two".
FOUR = {"en": "four", "fr": "quatre", "da": "fire", "it": "quattro", "fi": "neljä"}


@pytest.mark.parametrize("lang", languages.LANGUAGES)
def test_the_lobby_tagline_says_two_to_four(lang: str) -> None:
    tagline = catalogue(lang)["lobby.tagline"]
    assert isinstance(tagline, str) and FOUR[lang] in tagline.lower(), (lang, tagline)
    html = (WEB / "index.html").read_text(encoding="utf-8")
    assert f'data-i18n="lobby.tagline">{catalogue("en")["lobby.tagline"]}<' in html


# Messages that are the same words in English and in another language: cognates ("Match",
# "Points", "reserve"), key names as printed on keyboards, a unit, a bot, a name (Buchholz).
# Any other message a language has word for word as English was left untranslated.
SAME_AS_ENGLISH = {
    "fr": {
        "bot.expert",  # the same word in French
        "tournament.col.buchholz",
        "tournament.col.direct",
        "tournament.col.points",
        "tournament.table",
        "option.match.label",
        "option.move_time_limit_s.value.60",
        "option.move_time_limit_s.value.120",
        "lobby.http_error",
        "lobby.pace_normal",
        "players.col.points",
        "players.col.points.help",
        "players.fig.points",
        "players.fig.actions",
        "replay.pause",
        "table.title",
        "end.total",
        "seat.points",
        "rotation.col_place",
        "rotation.col_points",
        "join.rotation",
    },
    "da": {
        "ratings.col.rating",
        "ratings.heading",
        "tournament.bot",
        "tournament.col.buchholz",
        "rules.lobby",
        "call.word",
        "lobby.title",
        "lobby.http_error",
        "replay.pause",
        "replay.start",
        "key.home",
        "key.end",
        "key.shift",
        "key.enter",
        "slot.R",
        "slot.Q",
    },
    "it": {
        "lobby.opponent_bot",
        "lobby.http_error",
        "table.bot",
        "seat.bot",
        "tournament.bot",
        "tournament.col.buchholz",
    },
    "fi": {
        "lobby.http_error",
        "key.home",
        "key.end",
        "key.shift",
        "key.enter",
        "tournament.col.buchholz",
    },
}


@pytest.mark.parametrize("lang", sorted(SAME_AS_ENGLISH))
def test_no_message_is_left_in_english(lang: str) -> None:
    english, other = catalogue("en"), catalogue(lang)
    words = re.compile(r"[^\W\d_]{3,}")  # a message with no word (a symbol, a number) is exempt
    same = {
        key
        for key, message in english.items()
        if other.get(key) == message and words.search(PLACEHOLDER.sub("", json.dumps(message)))
    }
    assert sorted(same - SAME_AS_ENGLISH[lang]) == [], f"{lang}: still English"


# The log's sentences about one player's action: each has a form for the viewer himself, in the
# verb's second person ("Vous défaussez", "Panit pois"), not "{who}" filled with "you" ("Vous
# défausse", "Sinä pani pois": issue 31).
PERSONAL = [
    "log.turned",
    "log.turned_from",
    "log.waste_over",
    "log.discarded",
    "log.discarded_auto",
    "log.passed",
    "log.time_out",
    "log.call_right",
    "log.call_wrong",
    "log.draw_offered",
    "log.draw_accepted",
    "log.game_won",
    "log.resigned",
    "log.match_won",
    "first.cut",
    "first.alternate",
    "first.explicit",
]
# The second-person forms of discard and pass, word for word.
YOU_DISCARD_PASS = {
    "en": ("You discarded {card}", "You passed"),
    "fr": ("Vous défaussez {card}", "Vous passez"),
    "fi": ("Panit pois kortin {card}", "Ohitit"),
    "it": ("Hai scartato {card}", "Hai passato"),
    "da": ("Du kastede {card}", "Du passede"),
}


@pytest.mark.parametrize("lang", languages.LANGUAGES)
def test_every_action_has_a_form_for_the_viewer(lang: str) -> None:
    words = catalogue(lang)
    for key in PERSONAL:
        assert "who" in placeholders(words[key]), (lang, key)
        you = words[f"{key}.you"]
        assert "who" not in placeholders(you), (lang, key)
        assert placeholders(you) == placeholders(words[key]) - {"who"}, (lang, key)
        # Where the verb takes the person (not English or Danish "discarded", "kastede"), not the
        # third person with "you" put in.
        if lang in ("fr", "fi", "it"):
            third = str(words[key]).replace("{who}", str(words["player.You"]))
            assert you != third, (lang, key)
    assert (words["log.discarded.you"], words["log.passed.you"]) == YOU_DISCARD_PASS[lang]


def test_the_words_js_says_each_personal_action_with_personal() -> None:
    js = (WEB / "js" / "words.js").read_text(encoding="utf-8")
    for key in PERSONAL:
        assert re.search(rf'personal\("{re.escape(key)}"', js), key
        assert not re.search(rf't\("{re.escape(key)}"', js), key


@pytest.mark.parametrize("lang", languages.LANGUAGES)
def test_every_preset_and_bot_has_a_name(lang: str) -> None:
    words = catalogue(lang)
    for name in PRESETS:
        assert isinstance(words.get(f"preset.{name}"), str), (lang, name)
    for name in (*BOT_NAMES, "expert"):
        assert isinstance(words.get(f"bot.{name}"), str), (lang, name)
    assert placeholders(words["bot.named"]) == {"bot"}


def test_french_spaces_every_colon_one_way() -> None:
    """French puts a no-break space before a colon (issue 39: "Robot régulier :" and "robot
    régulier:" were both on screen): every French message does, and the client's modules
    join a name and what follows with the catalogue's own `punct.colon`, never a bare ": "."""
    for key, message in catalogue("fr").items():
        for form in message.values() if isinstance(message, dict) else [message]:
            for found in re.finditer(r"(.):(\s|$)", form):
                assert found[1] == "\u00a0", (key, form)
    assert catalogue("fr")["punct.colon"] == "\u00a0: "
    for lang in languages.LANGUAGES:
        assert str(catalogue(lang)["punct.colon"]).strip() == ":"
    for path in (WEB / "js").glob("*.js"):
        text = path.read_text(encoding="utf-8")
        glued = re.findall(r"\}: \$\{", text)
        assert not glued, f"{path.name} joins words with a bare ': ' (use t('punct.colon'))"


@pytest.mark.parametrize("lang", languages.LANGUAGES)
def test_the_help_texts_name_no_pile_by_its_code(lang: str) -> None:
    """An option's help or a preset's description says "two reserves", never "R and Q"
    (issue 39): no pile code in any help or description a player reads."""
    code = re.compile(r"\b([RQHIJXW]|[RQHIJXW][01]|[TF][0-7])\b(?! ?[♠♥♦♣])")
    for key, message in catalogue(lang).items():
        if key.endswith((".help", ".description")) and isinstance(message, str):
            assert not code.search(message), (lang, key, message)


def test_finnish_never_leaves_a_name_where_its_case_is_needed() -> None:
    """Finnish inflects a name where the grammar asks for a case ("Opi pelaajan vakaa botti
    virheistä", issue 39): a name cannot be inflected from a template, so each message phrases
    around it (a name stands as a subject, after a colon or in brackets), never after a
    case-marked "pelaaja" nor before a postposition."""
    name = r"\{(player|who|name|opponent|caller|winner|left|entered|a|b)\}"
    cased = re.compile(r"\bpelaaja(n|lle|lta|lla|sta|aa|ksi)\s+" + name)
    postposition = re.compile(r"(vastaan|kanssa|puolesta)\s+\{opponent\}")
    for key, message in catalogue("fi").items():
        for form in message.values() if isinstance(message, dict) else [message]:
            assert not cased.search(form), (key, form)
            assert not postposition.search(form), (key, form)
