"""Link previews: the Open Graph and Twitter Card tags of the replay and table pages, so that a
link shared in a chat or a post shows the position as a picture (`position.png`,
server/entrypoints/share_http.py) with who plays, the score and the preset, in the page's
language (issue 39). A previewer reads the page's HTML without running its scripts, so the tags
are put in by the server, from the lobby's projection of the table (`Facts`: names, match
totals, preset, status; server/readmodels/lobbyview.py): no match is loaded for a page view. A
table the projection does not know gets the page's generic words."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from urllib.parse import quote

from server.readmodels.share.picture import HEIGHT, WIDTH
from server.readmodels.share.words import Words

# The Open Graph locale of each of the client's languages.
LOCALES = {"en": "en_GB", "fr": "fr_FR", "da": "da_DK", "it": "it_IT", "fi": "fi_FI"}


@dataclass(frozen=True)
class Facts:
    """What a preview says of a table: its two players' names as stored (a bot as "steady
    bot", a free seat as None), the match totals, its preset and its lobby status (open,
    playing, finished, expired)."""

    players: tuple[str | None, str | None]
    totals: tuple[int, int] | None  # None: not known to the lobby (an imported record)
    preset: str
    status: str


def preview_words(page: str, facts: Facts | None, words: Words) -> tuple[str, str]:
    """The title and description of `page` ("replay" or "table") in `words`' language."""
    if facts is None:
        return words.t(f"preview.{page}.title"), words.t(f"preview.{page}.description")
    a, b = (words.name(name, seat) for seat, name in enumerate(facts.players))
    preset = words.t(f"preset.{facts.preset}") if words.has(f"preset.{facts.preset}") else ""
    preset = preset or facts.preset
    if facts.status == "open" or facts.players[1] is None:
        title = words.t("preview.waiting.title", a=a)
        return title, words.t("preview.waiting.description", preset=preset, a=a)
    title = words.t("lobby.versus", a=a, b=b) + " — Crapette"
    if facts.totals is None:
        return title, words.t("preview.finished_unscored", preset=preset)
    score = f"{facts.totals[0]}–{facts.totals[1]}"
    said = "preview.finished" if facts.status == "finished" else "preview.playing"
    return title, words.t(said, preset=preset, score=score)


def preview_tags(
    base: str,
    page: str,
    match_id: str,
    version: int | None,
    lang: str = "en",
    facts: Facts | None = None,
) -> str:
    """The tags of `page` ("replay" or "table") for this match, in `lang`; `version`: the
    position the link names (a replay's `?v=`), None for the latest; `facts`: the table as
    the lobby knows it (None: unknown here, generic words)."""
    words = Words(lang)
    title, description = preview_words(page, facts, words)
    path = "replay" if page == "replay" else "table"
    match = quote(match_id, safe="")
    url = f"{base}/{path}/{match}" + ("" if version is None else f"?v={version}")
    image = f"{base}/api/matches/{match}/position.png?" + (
        f"lang={lang}" if version is None else f"version={version}&lang={lang}"
    )
    tags = {
        "og:type": "website",
        "og:site_name": "Crapette",
        "og:locale": LOCALES.get(lang, "en_GB"),
        "og:title": title,
        "og:description": description,
        "og:url": url,
        "og:image": image,
        "og:image:type": "image/png",
        "og:image:width": str(WIDTH),
        "og:image:height": str(HEIGHT),
        "og:image:alt": words.t("preview.image_alt"),
        "twitter:card": "summary_large_image",
        "twitter:title": title,
        "twitter:description": description,
        "twitter:image": image,
    }
    return "\n".join(
        f'  <meta {"name" if key.startswith("twitter:") else "property"}="{key}" '
        f'content="{escape(value)}">'
        for key, value in tags.items()
    )


def with_preview(page_html: str, tags: str) -> str:
    """The page with the tags at the end of its head."""
    return page_html.replace("</head>", f"{tags}\n</head>", 1)
