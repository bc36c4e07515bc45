"""The addresses a friend on the same network can open."""

from __future__ import annotations

import socket


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses, the one of the default route first, loopback last."""
    found: list[str] = []
    try:
        # No packet is sent: connecting a UDP socket only picks the outgoing interface.
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("10.255.255.255", 1))
            found.append(probe.getsockname()[0])
    except OSError:
        pass
    try:
        for address in socket.gethostbyname_ex(socket.gethostname())[2]:
            if address not in found:
                found.append(address)
    except OSError:
        pass
    found = [a for a in found if not a.startswith("127.")]
    return [*found, "127.0.0.1"]


def lan_urls(host: str, port: int) -> list[str]:
    if host not in ("0.0.0.0", "", "::"):
        return [f"http://{host}:{port}/"]
    return [f"http://{address}:{port}/" for address in lan_addresses()]
