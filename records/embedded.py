"""A record embedded in a replay file (docs/records.md § The HTML form): the page carries the
record as JSON in `<script type="application/json" id="crapette-record">`, so that the file
imports like the record itself."""

from __future__ import annotations

import re

RECORD_ID = "crapette-record"
_RECORD = re.compile(rf'<script type="application/json" id="{RECORD_ID}">(.*?)</script>', re.DOTALL)


def record_text_of_html(text: str) -> str | None:
    """The JSON record embedded in a replay file, None when the page holds none."""
    found = _RECORD.search(text)
    return None if found is None else found.group(1)
