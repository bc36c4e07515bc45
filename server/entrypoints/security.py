"""What every answer of the server carries, and which `Host` it answers (docs/deploy.md
§ Security), in one WSGI layer around the whole app: Flask's routes and error pages, the static
files, and Socket.IO's own answers (engine.io's, which never pass Flask's hooks).

- The security headers: a Content-Security-Policy that lets a page run only the server's own
  scripts and style sheets (the pages carry no inline script nor `style=` attribute) and be
  framed only by the server's own pages, `X-Content-Type-Options: nosniff` and
  `Referrer-Policy: same-origin`. A route that needs another policy sets its own header, which
  is kept (the self-contained replay file, server/entrypoints/share_http.py).
- The Host check (DNS rebinding): a page of `evil.example` whose name an attacker points at a
  LAN server's address is of the same origin as the server for the browser, so the Origin check
  (server/entrypoints/origins.py) passes it; only the `Host` it sends tells it apart. The server
  answers only the host names and addresses it serves (`HostPolicy`), anything else with `421
  {"code": "misdirected_host", ...}` — Socket.IO handshakes included.
"""

from __future__ import annotations

import ipaddress
import json
import socket
from collections.abc import Callable, Iterable
from typing import Any

CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        # The pages' icon is `data:,` (no request for /favicon.ico).
        "img-src 'self' data:",
        # Socket.IO: 'self' covers ws: and wss: to the page's own host (CSP Level 3).
        "connect-src 'self'",
        "frame-ancestors 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
    ]
)
HEADERS: tuple[tuple[str, str], ...] = (
    ("Content-Security-Policy", CSP),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "same-origin"),
)
LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})

StartResponse = Callable[..., Any]
WsgiApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


def host_name(host: str) -> str:
    """The name or address of a `Host` header, without its port, brackets or final dot, in
    lower case: `[::1]:8000` -> `::1`, `Crapette.local.:80` -> `crapette.local`."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].partition("]")[0]
    if host.count(":") == 1:
        host = host.partition(":")[0]
    return host.rstrip(".")


def _address(name: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(name)
    except ValueError:
        return None


def machine_names() -> set[str]:
    """This machine's own names, as a LAN browser may type them: its host name, with `.local`
    (where the machine's own mDNS responder announces it) and fully qualified."""
    names: set[str] = set()
    try:
        hostname = socket.gethostname().lower().rstrip(".")
    except OSError:
        return names
    if hostname:
        short = hostname.partition(".")[0]
        names |= {hostname, short, f"{short}.local"}
    return names


class HostPolicy:
    """Which `Host` the server answers. Accepted: every IP address (a browser sends an address as
    `Host` only when its user typed it: DNS rebinding needs a name), `localhost`, this machine's
    own names, the name announced by mDNS (`--announce-name`), and each `--allowed-host`
    (`*`: any host, the check off). Behind a proxy (`--behind-proxy`) the host checked is the one
    the proxy received, `X-Forwarded-Host` (werkzeug's ProxyFix has put it in `Host` by then)."""

    def __init__(
        self,
        allowed: Iterable[str] = (),
        announced_url: str | None = None,
        own_names: Iterable[str] | None = None,
    ) -> None:
        given = {host_name(name) for name in allowed}
        self.any = "*" in given
        names = set(LOOPBACK_NAMES) | (machine_names() if own_names is None else set(own_names))
        if announced_url:
            names.add(host_name(announced_url.partition("://")[2].partition("/")[0]))
        self.names = frozenset({host_name(name) for name in names} | given - {"*"})

    def accepts(self, host: str | None) -> bool:
        if self.any:
            return True
        if not host:
            return False  # HTTP/1.1 requires one; an HTTP/1.0 client names none and is refused
        name = host_name(host)
        return _address(name) is not None or name in self.names

    def refusal(self, host: str | None) -> dict[str, object]:
        from server.errors import quoted

        return {
            "code": "misdirected_host",
            "message": (
                f"This server does not answer for the host {quoted(host or '')}: open it by one "
                "of its addresses or names; its owner can add one with --allowed-host NAME."
            ),
        }


class SecurityLayer:
    """The WSGI layer: the Host check, then the security headers on whatever answers."""

    def __init__(
        self, app: WsgiApp, hosts: HostPolicy, headers: tuple[tuple[str, str], ...] = HEADERS
    ) -> None:
        self.app = app
        self.hosts = hosts
        self.headers = headers

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            present = {name.lower() for name, _value in headers}
            extra = [(n, v) for n, v in self.headers if n.lower() not in present]
            return start_response(status, [*headers, *extra], exc_info)

        host = environ.get("HTTP_HOST")
        if not self.hosts.accepts(host):
            body = json.dumps(self.hosts.refusal(host)).encode()
            start(
                "421 Misdirected Request",
                [("Content-Type", "application/json"), ("Content-Length", str(len(body)))],
            )
            return [body]
        return self.app(environ, start)


def install(app: Any, hosts: HostPolicy) -> None:
    """Wrap the app's WSGI callable (after Flask-SocketIO's layer, so that its answers pass it
    too; before ProxyFix wraps both, so that the host seen is the one the proxy received)."""
    app.wsgi_app = SecurityLayer(app.wsgi_app, hosts)
