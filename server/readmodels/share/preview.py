"""Link previews: the Open Graph and Twitter Card tags of the replay and table pages, so that a
link shared in a chat or a post shows the position as a picture (`position.png`,
server/readmodels/share /http.py). A previewer reads the page's HTML without running its scripts, so
the tags are put in by the server; they name no player and load nothing of the match (a page view
stays cheap)."""

from __future__ import annotations

from html import escape
from urllib.parse import quote

from server.readmodels.share.picture import HEIGHT, WIDTH

TITLES = {
    "replay": ("Crapette — replay", "A game of Crapette (Russian Bank), move by move."),
    "table": ("Crapette — a table", "A game of Crapette (Russian Bank): watch it, or join in."),
}


def preview_tags(base: str, page: str, match_id: str, version: int | None) -> str:
    """The tags of `page` ("replay" or "table") for this match; `version`: the position the
    link names (a replay's `?v=`), None for the latest."""
    title, description = TITLES[page]
    path = "replay" if page == "replay" else "table"
    match = quote(match_id, safe="")
    url = f"{base}/{path}/{match}" + ("" if version is None else f"?v={version}")
    image = f"{base}/api/matches/{match}/position.png" + (
        "" if version is None else f"?version={version}"
    )
    tags = {
        "og:type": "website",
        "og:site_name": "Crapette",
        "og:title": title,
        "og:description": description,
        "og:url": url,
        "og:image": image,
        "og:image:type": "image/png",
        "og:image:width": str(WIDTH),
        "og:image:height": str(HEIGHT),
        "og:image:alt": "The cards on the table at this moment of the game",
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
