"""Typed reading of Flask test responses."""

from __future__ import annotations

from typing import Any

from werkzeug.test import TestResponse


def json_of(response: TestResponse) -> Any:
    """The response's JSON body; fails the test when it has none (Flask's `.json` is Optional)."""
    body = response.json
    assert body is not None, response.get_data(as_text=True)[:500]
    return body
