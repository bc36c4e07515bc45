"""On a real server process: a chunked JSON body (no Content-Length) opens a table under eventlet
and under threading, within the same size limit; `--async-mode threading` says at start that it
serves with Werkzeug's development server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from server.cli.serve import THREADING_WARNING
from server.entrypoints.bodies import MAX_JSON_BYTES
from tests.integration.harness import WAIT_S, ServerProcess


def _chunks(body: bytes, size: int = 7) -> Iterator[bytes]:
    """A generator body: requests sends it with Transfer-Encoding: chunked."""
    for start in range(0, len(body), size):
        yield body[start : start + size]


@pytest.mark.parametrize("mode", ["eventlet", "threading"])
def test_a_chunked_json_body_opens_a_table(tmp_path: Path, mode: str) -> None:
    server = ServerProcess(tmp_path, async_mode=mode).start()
    try:
        url = server.url + "/api/tables"
        headers = {"Content-Type": "application/json"}
        opened = requests.post(
            url, data=_chunks(b'{"name": "Ann"}'), headers=headers, timeout=WAIT_S
        )
        assert opened.request.headers.get("Transfer-Encoding") == "chunked"
        assert opened.status_code == 201, opened.text
        big = b'{"name": "' + b"a" * MAX_JSON_BYTES + b'"}'
        refused = requests.post(url, data=_chunks(big, 65536), headers=headers, timeout=WAIT_S)
        assert refused.status_code == 413, refused.text
        assert refused.json()["code"] == "too_large"
        warned = THREADING_WARNING in server.log()
        assert warned == (mode == "threading"), server.log()[-2000:]
    finally:
        server.stop()
