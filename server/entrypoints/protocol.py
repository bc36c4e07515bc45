"""The Socket.IO protocol's version (docs/protocol.md § Versions).

A client says which version of docs/protocol.md it speaks in its Socket.IO handshake: the auth
payload `{"protocol": N}` or the query `?protocol=N` (the auth payload wins when both are given).
The server serves `SUPPORTED`; a connection asking for any other version is refused at the
handshake with a `connect_error` whose data names the supported versions (`refusal`). A client
that names none is taken to speak `OLDEST_SERVED`: clients written before the version existed
speak version 2 and go on working while it is served.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import parse_qs

from server.errors import quoted

# 1: one `update` message per event (until issue 25). 2: one `updates` message per batch.
CURRENT = 2
SUPPORTED: tuple[int, ...] = (2,)
OLDEST_SERVED = min(SUPPORTED)
# The versions that existed and are served no more (for the message: "too old" or "unknown").
RETIRED: tuple[int, ...] = (1,)
# A version number is a whole number below this (anything else is quoted as a bad value).
VERSION_LIMIT = 10**6
UNSUPPORTED = "unsupported_protocol"


def asked_version(environ: Mapping[str, object] | None, auth: object) -> object:
    """What the client named: the auth payload's `protocol`, else the query's, else None."""
    if isinstance(auth, Mapping) and "protocol" in auth:
        return auth["protocol"]
    query = str((environ or {}).get("QUERY_STRING") or "")
    values = parse_qs(query).get("protocol")
    return values[0] if values else None


def version_of(asked: object) -> int | None:
    """The version a client asked for as a number (None: not a version number at all)."""
    if isinstance(asked, bool):
        return None
    if isinstance(asked, int):
        return asked if 0 <= asked < VERSION_LIMIT else None
    if isinstance(asked, str) and asked.isascii() and asked.isdigit() and len(asked) <= 6:
        return int(asked)
    return None


def refusal(environ: Mapping[str, object] | None, auth: object) -> dict[str, object] | None:
    """Why a connection is refused (the `connect_error` data), or None to accept it."""
    asked = asked_version(environ, auth)
    if asked is None:
        return None  # no version: OLDEST_SERVED (docs/protocol.md § Versions)
    version = version_of(asked)
    if version in SUPPORTED:
        return None
    served = ", ".join(str(v) for v in SUPPORTED)
    shown = quoted(asked)  # at most QUOTE_CHARS of whatever was sent
    if version in RETIRED:
        why = f"protocol version {version} is no longer served"
    elif version is not None and version > CURRENT:
        why = f"protocol version {version} is newer than this server's"
    else:
        why = f"{shown} is not a protocol version this server knows"
    return {
        "code": UNSUPPORTED,
        "message": f"{why}: this server speaks version {served} (docs/protocol.md § Versions); "
        "reload the page, or update the client",
        "asked": asked if version is not None else shown,
        "supported": list(SUPPORTED),
        "current": CURRENT,
    }
