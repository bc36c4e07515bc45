"""Which web pages may talk to this server. A browser names the page that makes a request in its
`Origin` header; by default only the server's own pages (the origin the request was addressed to)
are accepted for Socket.IO connections and for HTTP requests that change something, and
`--allowed-origin` adds more. A request without `Origin` (curl, the CLI, a bot client) is no
page's request and is accepted: the check guards players' browsers against other sites, not the
server against programs.

Without it any page a LAN player opens could open tables, take seats or watch from his browser.

The host a request was addressed to is its `Host` header. A reverse proxy's `X-Forwarded-Host`
and `-Proto` count only when the server is told it runs behind one (`--behind-proxy`): otherwise
any program could name the page's own site in that header and pass for the server's own page."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def normalise(origin: str) -> str:
    """`http://Host:8000/` and `http://host:8000` name the same origin."""
    origin = origin.strip().rstrip("/")
    scheme, sep, rest = origin.partition("://")
    return f"{scheme.lower()}{sep}{rest.lower()}" if sep else origin


def own_origins(environ: Mapping[str, Any], behind_proxy: bool = False) -> set[str]:
    """The origins this request was addressed to; `behind_proxy`: also as the reverse proxy in
    front says it received it (X-Forwarded-Host/-Proto)."""
    host = environ.get("HTTP_HOST")
    if not host:
        return set()
    scheme = environ.get("wsgi.url_scheme", "http")
    result = {normalise(f"{scheme}://{host}")}
    if not behind_proxy:
        return result
    forwarded_host = environ.get("HTTP_X_FORWARDED_HOST", host).split(",")[0].strip()
    forwarded_proto = environ.get("HTTP_X_FORWARDED_PROTO", scheme).split(",")[0].strip()
    result.add(normalise(f"{forwarded_proto}://{forwarded_host}"))
    return result


class OriginPolicy:
    def __init__(self, allowed: Iterable[str] = (), behind_proxy: bool = False) -> None:
        self.allowed = frozenset(normalise(o) for o in allowed)
        self.any = "*" in self.allowed
        self.behind_proxy = behind_proxy

    def accepts(self, origin: str | None, environ: Mapping[str, Any]) -> bool:
        if origin is None or self.any:
            return True
        origin = normalise(origin)
        return origin in self.allowed or origin in own_origins(environ, self.behind_proxy)

    def for_socketio(self) -> Callable[[str | None, Mapping[str, Any]], bool]:
        """python-engineio's `cors_allowed_origins` callable: `(origin, environ) -> bool`."""
        return self.accepts
