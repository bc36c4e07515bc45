"""The players' rules page in every language the client speaks (issue 19): `/rules` follows
`?lang=`, the remembered choice (cookie) and Accept-Language; every section of web/rules.md is
there in each language, under the same id."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
import requests

from server.wire import languages
from tests.integration.harness import ServerProcess

REPO_ROOT = Path(__file__).resolve().parents[2]
WEB = REPO_ROOT / "web"


def _sections(lang: str) -> list[tuple[str, str]]:
    """(title, id) of every `## ` heading of one language's rules source."""
    name = "rules.md" if lang == "en" else f"rules.{lang}.md"
    out = []
    for line in (WEB / name).read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            match = re.fullmatch(r"## (.*?)(?: \{#([\w-]+)\})?", line)
            assert match, line
            out.append((match[1], match[2] or ""))
    return out


def test_every_language_has_every_section_of_the_english_rules() -> None:
    english = [anchor for _title, anchor in _sections("en")]
    for lang in languages.LANGUAGES[1:]:
        sections = _sections(lang)
        # Same sections, same order, each with the English page's id (links such as
        # /rules#presets work in every language).
        assert len(sections) == len(english), lang
        assert all(anchor for _title, anchor in sections), lang
        titles = [title for title, _anchor in sections]
        assert len(set(titles)) == len(titles), lang


@pytest.mark.parametrize("lang", languages.LANGUAGES)
def test_the_rules_page_renders_every_section_in_each_language(
    server: ServerProcess, lang: str
) -> None:
    response = server.get(f"/rules?lang={lang}")
    assert response.status_code == 200
    assert response.headers["content-language"] == lang
    page = response.text
    assert f'<html lang="{lang}">' in page
    assert "<!-- the server puts" not in page and "{{" not in page
    english_ids = re.findall(r'<h2 id="([\w-]+)">', server.get("/rules?lang=en").text)
    assert len(english_ids) >= 8
    for (title, _anchor), anchor in zip(_sections(lang), english_ids, strict=True):
        assert f'<h2 id="{anchor}">{html.escape(title, quote=False)}</h2>' in page, (lang, title)
    assert "<table>" in page and "<td>" in page
    # The switch names every language in its own words; the current one is marked.
    for other in languages.LANGUAGES:
        name = html.escape(languages.catalogue(other)["language.name"])
        assert f'data-lang="{other}"' in page and f">{name}</a>" in page
    assert f'data-lang="{lang}" aria-current="true"' in page
    # The call is each rule text's own word.
    call = {"en": "Crapette!", "fr": "Crapette !", "it": "Sosta!", "fi": "seis!", "da": "Crapette!"}
    assert call[lang] in page


def test_the_rules_page_follows_accept_language_and_the_remembered_choice(
    server: ServerProcess,
) -> None:
    def get(path: str, **headers: str) -> requests.Response:
        return requests.get(server.url + path, headers=headers, timeout=10)

    def lang_of(response: requests.Response) -> str:
        return response.headers["content-language"]

    assert lang_of(get("/rules", **{"Accept-Language": ""})) == "en"
    assert lang_of(get("/rules", **{"Accept-Language": "it-IT,it;q=0.9"})) == "it"
    # The first language this client speaks, by preference.
    accept = "de;q=1.0, fi;q=0.8, fr;q=0.5"
    assert lang_of(get("/rules", **{"Accept-Language": accept})) == "fi"
    assert lang_of(get("/rules", **{"Accept-Language": "de, es"})) == "en"
    # ?lang= wins and is remembered (a cookie the server reads on the next visit).
    chosen = get("/rules?lang=da", **{"Accept-Language": "fr"})
    assert lang_of(chosen) == "da" and "crapette_lang=da" in chosen.headers["set-cookie"]
    remembered = get("/rules", **{"Accept-Language": "fr", "Cookie": "crapette_lang=da"})
    assert lang_of(remembered) == "da"
    # An unknown language is ignored, not an error.
    assert lang_of(get("/rules?lang=xx", **{"Accept-Language": "fr"})) == "fr"
