"""The replay as one HTML file (docs/records.md § HTML): the replay page itself, its style sheets
inlined, its modules as data: URLs behind an import map (server/readmodels/share/bundle.py), and
what the page would ask the server for embedded as JSON: the replay (frames, analysis), each seat's
options in the finished games, the words of every language, the match record, which `crapette
import` and `crapette verify` read back out of the file (`record_text_of_html`), and the engine's
analysis of the match when one was built (server/readmodels/analysis_build.py): the win-chance
graph, judgements and accuracy the replay page draws (web/js/judgements.js).

The page opened from disk asks nothing of any network: web/js/offline.js answers its requests
from the embedded data before any other module runs."""

from __future__ import annotations

import base64
import hashlib
import importlib.resources
import json
import re
from html import escape
from pathlib import Path
from typing import Any

from records.embedded import RECORD_ID
from server.readmodels.share.bundle import PREFIX, module_graph
from server.wire.languages import LANGUAGES

FORMAT = "crapette-replay-html/1"
OFFLINE_ID = "crapette-offline"
ANALYSIS_ID = "crapette-analysis"
_ANALYSIS = re.compile(
    rf'<script type="application/json" id="{ANALYSIS_ID}">(.*?)</script>', re.DOTALL
)
_STYLESHEET = re.compile(r'<link rel="stylesheet" href="/static/([^"]+)">')
_MODULE = re.compile(r'<script type="module" src="/static/([^"]+)"></script>')
_SERVER_LINK = re.compile(r'\shref="(/[^"]*)"')


def web_dir() -> Path:
    return Path(str(importlib.resources.files("web")))


def embed_json(data: Any) -> str:
    """JSON that can stand inside a <script> element: no `<` in it can close the element."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c")


def replay_html(
    replay: dict[str, Any],
    options: dict[str, Any],
    record: dict[str, Any],
    source_url: str | None = None,
    web: Path | None = None,
    analysis: dict[str, Any] | None = None,
) -> str:
    """The page. `replay`: the replay body as the server sends it (server/readmodels/replays.py);
    `options`: seat ("0", "1") → that seat's options body; `source_url`: the server the file
    came from (its links then lead there), None for a file made on the command line;
    `analysis`: the match's analysis body (docs/protocol.md § analysis), None for none."""
    web = web or web_dir()
    page = (web / "replay.html").read_text(encoding="utf-8")
    page = _STYLESHEET.sub(lambda m: _style(web, m.group(1)), page)
    entries = ["js/offline.js", *_MODULE.findall(page)]
    offline = {
        "format": FORMAT,
        "match_id": replay["match_id"],
        # A file never follows a live match: it is the match as it stood when it was made.
        "replay": {**replay, "live": False},
        "options": options,
        "i18n": {lang: _catalogue(web, lang) for lang in LANGUAGES},
        "source_url": source_url,
    }
    scripts = "\n".join(
        [
            f'<script type="application/json" id="{RECORD_ID}">{embed_json(record)}</script>',
            f'<script type="application/json" id="{OFFLINE_ID}">{embed_json(offline)}</script>',
            *([_data(ANALYSIS_ID, analysis)] if analysis is not None else []),
            f'<script type="importmap">{module_graph(web, entries).import_map()}</script>',
            '<script type="module">'
            + "".join(f'import "{PREFIX}{path}";' for path in entries)
            + "</script>",
        ]
    )
    page = _MODULE.sub(lambda _m: scripts, page, count=1)
    page = _MODULE.sub("", page)
    page = _SERVER_LINK.sub(lambda m: _link(source_url, m.group(1)), page)
    generator = f'<meta name="generator" content="{FORMAT}">'
    return page.replace('<meta charset="utf-8">', f'<meta charset="utf-8">\n  {generator}', 1)


def _data(element_id: str, data: Any) -> str:
    return f'<script type="application/json" id="{element_id}">{embed_json(data)}</script>'


def _style(web: Path, path: str) -> str:
    return f"<style>\n{(web / path).read_text(encoding='utf-8')}</style>"


def _catalogue(web: Path, lang: str) -> Any:
    return json.loads((web / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))


def _link(source_url: str | None, path: str) -> str:
    """A link to the server's own page: to that server when known, else none (a file has no
    server beside it)."""
    if source_url is None:
        return ""
    return f' href="{escape(source_url.rstrip("/") + path)}"'


_INLINE = re.compile(r"<(script|style)(\s[^>]*)?>(.*?)</\1>", re.DOTALL)


def inline_policy(page: str) -> str:
    """The Content-Security-Policy of this file served over HTTP (server/entrypoints/share_http.py):
    its own inline scripts and style sheets by their hashes, its modules as the `data:` URLs of its
    import map, and as strict as the server's pages otherwise (server/entrypoints/security.py): no
    other script, nothing loaded from anywhere, no framing by another site. A file opened from disk
    carries no policy: it has no server's origin to protect and asks nothing of a network."""
    scripts: list[str] = []
    styles: list[str] = []
    for kind, attributes, body in _INLINE.findall(page):
        if 'type="application/json"' in (attributes or ""):
            continue  # data, never run
        digest = base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode()
        (scripts if kind == "script" else styles).append(f"'sha256-{digest}'")
    return "; ".join(
        [
            "default-src 'none'",
            f"script-src {' '.join(scripts)} data:",
            "style-src " + " ".join(styles or ["'none'"]),
            "img-src data:",
            "frame-ancestors 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'none'",
        ]
    )


def is_html(text: str) -> bool:
    return text.lstrip("\ufeff \t\r\n")[:1] == "<"


def analysis_of_html(text: str) -> Any:
    """The analysis embedded in a replay file, None when it holds none."""
    found = _ANALYSIS.search(text)
    return None if found is None else json.loads(found.group(1))
