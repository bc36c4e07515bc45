"""Which web pages may talk to this server. A browser names the page that makes a request in its
`Origin` header; by default only the server's own pages (the origin the request was addressed to)
are accepted for Socket.IO connections and for HTTP requests that change something, and
`--allowed-origin` adds more. A request without `Origin` (curl, the CLI, a bot client) is no
page's request and is accepted: the check guards players' browsers against other sites, not the
server against programs.

Without it any page a LAN player opens could open tables, take seats or watch from his browser."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def normalise(origin: str) -> str:
    """`http://Host:8000/` and `http://host:8000` name the same origin."""
    origin = origin.strip().rstrip("/")
    scheme, sep, rest = origin.partition("://")
    return f"{scheme.lower()}{sep}{rest.lower()}" if sep else origin


def own_origins(environ: Mapping[str, Any]) -> set[str]:
    """The origins this request was addressed to (as a reverse proxy may have forwarded it)."""
    host = environ.get("HTTP_HOST")
    if not host:
        return set()
    scheme = environ.get("wsgi.url_scheme", "http")
    result = {normalise(f"{scheme}://{host}")}
    forwarded_host = environ.get("HTTP_X_FORWARDED_HOST", host).split(",")[0].strip()
    forwarded_proto = environ.get("HTTP_X_FORWARDED_PROTO", scheme).split(",")[0].strip()
    result.add(normalise(f"{forwarded_proto}://{forwarded_host}"))
    return result


class OriginPolicy:
    def __init__(self, allowed: Iterable[str] = ()) -> None:
        self.allowed = frozenset(normalise(o) for o in allowed)
        self.any = "*" in self.allowed

    def accepts(self, origin: str | None, environ: Mapping[str, Any]) -> bool:
        if origin is None or self.any:
            return True
        origin = normalise(origin)
        return origin in self.allowed or origin in own_origins(environ)

    def for_socketio(self) -> Callable[[str | None, Mapping[str, Any]], bool]:
        """python-engineio's `cors_allowed_origins` callable: `(origin, environ) -> bool`."""
        return self.accepts
