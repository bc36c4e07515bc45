"""The languages the browser client speaks, and which one a request asks for.

The client's words live in `web/i18n/<lang>.json` (one catalogue per language, data, see
docs/web.md); the server reads them only for the pages it renders itself (the rules page). The
CLI, the API and records stay English.
"""

from __future__ import annotations

import functools
import importlib.resources
import json

from flask import Request

LANGUAGES = ("en", "fr", "da", "it", "fi")
DEFAULT = "en"
# The cookie the browser's language switch sets (web/js/i18n.js), so that a page the server
# renders follows the choice remembered in this browser.
COOKIE = "crapette_lang"


def supported(lang: object) -> str | None:
    """`lang` as one of LANGUAGES ("fr-CA" → "fr"), or None."""
    if not isinstance(lang, str):
        return None
    base = lang.strip().lower().replace("_", "-").split("-")[0]
    return base if base in LANGUAGES else None


def choose(request: Request) -> str:
    """The language of a page: `?lang=`, else the remembered choice (cookie), else the best of
    Accept-Language, else English."""
    for asked in (request.args.get("lang"), request.cookies.get(COOKIE)):
        lang = supported(asked)
        if lang:
            return lang
    for value, _quality in request.accept_languages:
        lang = supported(value)
        if lang:
            return lang
    return DEFAULT


@functools.cache
def catalogue(lang: str) -> dict[str, str]:
    """The client's message catalogue of one language (`web/i18n/<lang>.json`)."""
    text = importlib.resources.files("web").joinpath("i18n", f"{lang}.json").read_text("utf-8")
    messages: dict[str, str] = json.loads(text)
    return messages
