"""The server found by name on the LAN: an mDNS/DNS-SD announcement (python-zeroconf) of
`http://crapette.local:8000/` and of an `_http._tcp` service named "Crapette on <host>".

python-zeroconf runs an asyncio loop in a thread of its own and keeps sockets of its own. In a
process monkey-patched by eventlet that thread would be a greenthread and its selector the hub's
(they fight over the loop), so the announcement lives in a process of its own, as the read
workers do (server/adapters/workers.py): `python -m server.adapters.announce CONFIG`, a fresh
interpreter started by fork+exec, where zeroconf has real threads and plain sockets. The server only
starts it and, when it stops, closes its standard input; the announcer then says goodbye (the
records' TTL 0) and ends. It also ends by itself when the server is gone (its standard input reads
end-of-file, whatever way the server ended). What this costs the playing loop: docs/lan.md.

Every few seconds the announcer reads the machine's addresses again (ifaddr, no packet sent);
when they changed (a laptop moved to another Wi-Fi, a DHCP lease renewed with another address),
it withdraws the announcement and makes it again on the new interfaces.

What is announced: the IPv4 addresses of the interfaces the server listens on that another
machine can reach (never loopback, unless the interfaces are named with `--announce-on`, as
the tests do in a network namespace of their own); nothing when the server listens on a
loopback address only. The printed URLs and the lobby's QR code stay the primary way in: mDNS
needs a network that carries multicast (many guest Wi-Fis do not) and a client that resolves
`.local` names (most phones and desktops do; some Android versions do not)."""

from __future__ import annotations

import ipaddress
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

log = logging.getLogger(__name__)

SERVICE_TYPE = "_http._tcp.local."
DEFAULT_NAME = "crapette"
# How often the announcer looks at the machine's addresses again.
POLL_S = 5.0
# How much lower the announcer's CPU priority is than the server's (os.nice), as read workers.
NICENESS = 10


@dataclass(frozen=True)
class Announcement:
    """What is announced: the host name `<name>.local` at `addresses`, and the service
    `<instance>._http._tcp.local.` on `port` there, whose TXT record gives the path."""

    name: str
    port: int
    addresses: tuple[str, ...]
    instance: str
    properties: dict[str, str] = field(default_factory=dict)

    @property
    def host(self) -> str:
        return f"{self.name}.local."

    @property
    def url(self) -> str:
        return f"http://{self.name}.local:{self.port}/"

    def service_info(self) -> Any:
        from zeroconf import ServiceInfo

        return ServiceInfo(
            SERVICE_TYPE,
            f"{self.instance}.{SERVICE_TYPE}",
            port=self.port,
            addresses=[socket.inet_aton(address) for address in self.addresses],
            server=self.host,
            properties=self.properties,
        )


@dataclass(frozen=True)
class AnnounceConfig:
    """The announcer's settings, passed to its process as one JSON argument."""

    name: str
    port: int
    host: str  # the address the server listens on
    interfaces: tuple[str, ...] = ()  # interface names to announce on; () = every reachable one
    instance: str = ""
    version: str = ""
    poll_s: float = POLL_S

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> AnnounceConfig:
        data = json.loads(text)
        data["interfaces"] = tuple(data["interfaces"])
        return cls(**data)

    def announcement(self, addresses: tuple[str, ...]) -> Announcement:
        instance = self.instance or f"Crapette on {socket.gethostname()}"
        properties = {"path": "/", "version": self.version} if self.version else {"path": "/"}
        return Announcement(self.name, self.port, addresses, instance, properties)


def valid_name(name: str) -> bool:
    """A DNS label: letters, digits and inner hyphens, at most 63 characters."""
    return (
        0 < len(name) <= 63
        and name.isascii()
        and all(c.isalnum() or c == "-" for c in name)
        and not name.startswith("-")
        and not name.endswith("-")
    )


# -- which addresses -------------------------------------------------------------------------


Adapters = Callable[[], Iterable[tuple[str, Iterable[str]]]]


def machine_adapters() -> list[tuple[str, list[str]]]:
    """Each network interface's name and IPv4 addresses, as the system lists them now."""
    import ifaddr

    return [
        (adapter.name, [ip.ip for ip in adapter.ips if isinstance(ip.ip, str)])
        for adapter in ifaddr.get_adapters()
    ]


def reachable_by_name(config: AnnounceConfig) -> bool:
    """Whether announcing could help anyone: not when the server listens on loopback only
    (unless interfaces are named: the tests, in a network namespace of their own)."""
    return bool(config.interfaces) or not _loopback(config.host)


def addresses_to_announce(config: AnnounceConfig, adapters: Adapters) -> tuple[str, ...]:
    """The IPv4 addresses at which the server can be reached by name, in a stable order: those
    of the named interfaces (`config.interfaces`), else every non-loopback one; only the
    listening address when the server listens on one address; none for loopback only."""
    listening = config.host in ("", "0.0.0.0", "::")
    if not reachable_by_name(config):
        return ()
    found: list[str] = []
    for name, ips in adapters():
        if config.interfaces and name not in config.interfaces:
            continue
        for ip in ips:
            if (config.interfaces or not _loopback(ip)) and ip not in found:
                found.append(ip)
    if not listening:
        found = [ip for ip in found if ip == config.host]
    return tuple(sorted(found, key=lambda ip: ipaddress.IPv4Address(ip)))


def _loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


# -- the announcer's loop (in its own process) -----------------------------------------------


class Registrar(Protocol):
    """Where an announcement is made (zeroconf; a fake in the unit tests)."""

    def register(self, announcement: Announcement) -> None: ...

    def withdraw(self) -> None: ...


class ZeroconfRegistrar:
    """One zeroconf instance per announcement, bound to its addresses' interfaces only: a new
    address (another network) needs sockets joined to the multicast group there, so a change
    of addresses withdraws the old instance (goodbye packets) and starts a new one."""

    def __init__(self) -> None:
        self._zeroconf: Any = None
        self._info: Any = None

    def register(self, announcement: Announcement) -> None:
        from zeroconf import IPVersion, Zeroconf

        self.withdraw()
        zeroconf = Zeroconf(interfaces=list(announcement.addresses), ip_version=IPVersion.V4Only)
        info = announcement.service_info()
        # Another server of the same name on this network: the instance becomes "… (2)".
        zeroconf.register_service(info, allow_name_change=True)
        self._zeroconf, self._info = zeroconf, info

    def withdraw(self) -> None:
        if self._zeroconf is None:
            return
        try:
            self._zeroconf.unregister_service(self._info)
        finally:
            self._zeroconf.close()
            self._zeroconf = self._info = None


class Announcer:
    """The announcer's loop: announce what `addresses()` gives, again whenever it changes."""

    def __init__(
        self,
        config: AnnounceConfig,
        registrar: Registrar,
        adapters: Adapters = machine_adapters,
    ) -> None:
        self.config = config
        self.registrar = registrar
        self.adapters = adapters
        self.current: tuple[str, ...] = ()

    def step(self) -> bool:
        """Look at the addresses once; (re-)announce if they changed. True if it did."""
        addresses = addresses_to_announce(self.config, self.adapters)
        if addresses == self.current:
            return False
        if addresses:
            announcement = self.config.announcement(addresses)
            self.registrar.register(announcement)
            _say(f"announced {announcement.url} at {', '.join(addresses)}")
        else:
            self.registrar.withdraw()
            _say("no address to announce on; waiting for a network")
        self.current = addresses
        return True

    def run(self, stop: threading.Event) -> None:
        try:
            while True:
                try:
                    self.step()
                except OSError as exc:  # an interface going away mid-change: try again later
                    _say(f"announcing failed ({exc}); trying again")
                    self.current = ()
                if stop.wait(self.config.poll_s):
                    return
        finally:
            self.registrar.withdraw()


def _say(message: str) -> None:
    print(f"crapette announce: {message}", file=sys.stderr, flush=True)


def _until_eof(stop: threading.Event) -> None:
    """The server closes our standard input to stop us, and so does its end, however it ends."""
    while sys.stdin.buffer.read(4096):
        pass
    stop.set()


def main(argv: list[str]) -> None:
    # First, before zeroconf is imported: on a busy machine the server's loop (moves) gets the
    # core before this process's start (~0.2 s of CPU) and its few packets.
    os.nice(NICENESS)
    config = AnnounceConfig.from_json(argv[0])
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the server; its end stops us
    signal.signal(signal.SIGTERM, lambda _s, _f: stop.set())
    stop = threading.Event()
    threading.Thread(target=_until_eof, args=(stop,), daemon=True).start()
    Announcer(config, ZeroconfRegistrar()).run(stop)


# -- in the server process ---------------------------------------------------------------------


class AnnouncerProcess:
    """The announcer as the server runs it: started once, stopped (goodbye sent) at exit."""

    def __init__(self, config: AnnounceConfig, argv: list[str] | None = None) -> None:
        self.config = config
        self.argv = argv or [sys.executable, "-m", "server.adapters.announce"]
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [*self.argv, self.config.to_json()], stdin=subprocess.PIPE, close_fds=True
        )

    def stop(self, wait_s: float = 3.0) -> None:
        """Close its standard input: it withdraws the announcement and ends."""
        proc = self.proc
        if proc is None or proc.poll() is not None:
            return
        try:
            assert proc.stdin is not None
            proc.stdin.close()
            proc.wait(wait_s)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait(wait_s)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main(sys.argv[1:])
