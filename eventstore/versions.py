"""The two special values of `expected_version` (a real version is >= 0; 0 means "the stream is
empty"). A module of their own so that errors.py, which words them, and events.py, which checks
them, need not import each other."""

from __future__ import annotations

from typing import Final

NO_STREAM: Final = -1  # the stream must not exist yet (same check as expected_version=0)
ANY: Final = -2  # no check: append at whatever version the stream has reached
