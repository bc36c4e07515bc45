"""HTTP request bodies parsed with limits: a size cap before anything is read, JSON decoded by
the standard library (whose C scanner stops with a RecursionError at the interpreter's recursion
limit instead of overflowing the stack), and then a depth cap on what was decoded. Anything a
client may send that does not pass is an `InvalidInputError` (a structured 400), never a 500."""

from __future__ import annotations

import json
from typing import Any

from flask import Request

from server.errors import InvalidInputError, TooLargeError

# A lobby body (a name, a preset, a few options) is well under a kilobyte; 256 KB leaves room
# for any client and still bounds the work (JSON 100,000 deep is 100 KB: refused for its depth).
MAX_JSON_BYTES = 256 * 1024
# The deepest lobby body is {"options": {...: value}}: 3 levels; room to spare for clients.
MAX_JSON_DEPTH = 16


def _invalid(message: str) -> InvalidInputError:
    return InvalidInputError(message, details={"_schema": [message]})


def json_depth_over(value: Any, limit: int) -> bool:
    """True if `value` nests lists or objects more than `limit` deep (iterative: no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def parse_json(raw: bytes, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """The JSON value of `raw`, or an `InvalidInputError` saying why it is not one."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _invalid("The body is not UTF-8 text.") from None
    try:
        data = json.loads(text)
    except RecursionError:
        raise _invalid(f"The JSON body is nested more than {max_depth} levels deep.") from None
    except ValueError as exc:  # JSONDecodeError, and int() refusing over 4,300 digits
        raise _invalid(f"The body is not valid JSON: {exc}.") from None
    if json_depth_over(data, max_depth):
        raise _invalid(f"The JSON body is nested more than {max_depth} levels deep.")
    return data


def read_body(request: Request, max_bytes: int, too_large: str) -> bytes:
    """The request's body, read only up to `max_bytes` (whatever Content-Length claims), with or
    without a Content-Length: a chunked body (`Transfer-Encoding: chunked`) is read to its end
    from the server's own stream, which undoes the chunking (eventlet's, Werkzeug's), as
    Werkzeug reads no body without a length from a server that does not say it ends it."""
    if request.content_length is not None:
        if request.content_length > max_bytes:
            raise TooLargeError(too_large)
        stream = request.stream
    elif "chunked" in request.headers.get("Transfer-Encoding", "").lower():
        stream = request.environ["wsgi.input"]
    else:
        return b""
    parts: list[bytes] = []
    size = 0
    while size <= max_bytes:
        part = stream.read(max_bytes + 1 - size)
        if not part:
            break
        parts.append(part)
        size += len(part)
    if size > max_bytes:
        raise TooLargeError(too_large)
    return b"".join(parts)


def json_body(request: Request, max_bytes: int = MAX_JSON_BYTES) -> Any:
    """The request's JSON body, read only up to `max_bytes` (whatever Content-Length claims)."""
    raw = read_body(request, max_bytes, f"A request body is at most {max_bytes // 1024} KB here.")
    if not raw.strip():
        raise _invalid("Expected a JSON body.")
    return parse_json(raw)
