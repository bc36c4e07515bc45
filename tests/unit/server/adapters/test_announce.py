"""What the server announces by mDNS (server/adapters/announce.py), checked without sending a
packet: the addresses chosen, the records built, the re-announcement when the addresses change, and
when `crapette serve` starts an announcer at all. The packets themselves:
tests/integration/test_announce.py, in a network namespace of its own."""

from __future__ import annotations

import socket
from collections.abc import Iterable

import click
import pytest

from server.adapters.announce import (
    SERVICE_TYPE,
    AnnounceConfig,
    Announcement,
    Announcer,
    addresses_to_announce,
    valid_name,
)
from server.cli.serve import _announcer

ADAPTERS = [
    ("lo", ["127.0.0.1"]),
    ("eth0", ["192.0.2.20"]),
    ("wlan0", ["198.51.100.7", "198.51.100.9"]),
]


def adapters() -> Iterable[tuple[str, Iterable[str]]]:
    return ADAPTERS


def config(host: str = "0.0.0.0", interfaces: tuple[str, ...] = ()) -> AnnounceConfig:
    return AnnounceConfig("crapette", 8000, host, interfaces, instance="Crapette on box")


def test_every_reachable_address_but_loopback_when_listening_on_all() -> None:
    got = addresses_to_announce(config(), adapters)
    assert got == ("192.0.2.20", "198.51.100.7", "198.51.100.9")


def test_the_named_interfaces_only() -> None:
    assert addresses_to_announce(config(interfaces=("wlan0",)), adapters) == (
        "198.51.100.7",
        "198.51.100.9",
    )
    # Named, loopback counts too (the tests' namespace has nothing else).
    assert addresses_to_announce(config(interfaces=("lo",)), adapters) == ("127.0.0.1",)


def test_only_the_listening_address_when_the_server_listens_on_one() -> None:
    assert addresses_to_announce(config("198.51.100.9"), adapters) == ("198.51.100.9",)
    assert addresses_to_announce(config("203.0.113.1"), adapters) == ()  # not this machine's


def test_nothing_for_a_server_on_loopback_only() -> None:
    assert addresses_to_announce(config("127.0.0.1"), adapters) == ()


def test_the_records_name_the_host_the_service_and_its_path() -> None:
    announcement = config().announcement(("192.0.2.20",))
    assert announcement.url == "http://crapette.local:8000/"
    info = announcement.service_info()
    assert info.type == SERVICE_TYPE
    assert info.name == f"Crapette on box.{SERVICE_TYPE}"
    assert info.server == "crapette.local."
    assert info.port == 8000
    assert info.addresses == [socket.inet_aton("192.0.2.20")]
    assert info.properties == {b"path": b"/"}


def test_the_config_crosses_to_the_announcer_process_as_json() -> None:
    sent = AnnounceConfig("club", 8123, "0.0.0.0", ("wlan0",), "Club", "1.2.3", 2.5)
    assert AnnounceConfig.from_json(sent.to_json()) == sent


class FakeRegistrar:
    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[str, ...]]] = []

    def register(self, announcement: Announcement) -> None:
        self.calls.append(("register", announcement.addresses))

    def withdraw(self) -> None:
        self.calls.append(("withdraw", ()))


def test_announced_again_when_the_addresses_change_and_only_then() -> None:
    networks = [
        [("eth0", ["192.0.2.20"])],
        [("eth0", ["192.0.2.20"])],
        [("eth0", ["192.0.2.20"]), ("wlan0", ["198.51.100.7"])],
        [("lo", ["127.0.0.1"])],  # the laptop left every network
        [("wlan0", ["198.51.100.8"])],
    ]
    now: list[list[tuple[str, list[str]]]] = [networks[0]]
    registrar = FakeRegistrar()
    announcer = Announcer(config(), registrar, lambda: now[0])
    changes = []
    for network in networks:
        now[0] = network
        changes.append(announcer.step())
    assert changes == [True, False, True, True, True]
    assert registrar.calls == [
        ("register", ("192.0.2.20",)),
        ("register", ("192.0.2.20", "198.51.100.7")),
        ("withdraw", ()),
        ("register", ("198.51.100.8",)),
    ]


@pytest.mark.parametrize("name", ["crapette", "club-2", "A1"])
def test_valid_names(name: str) -> None:
    assert valid_name(name)


@pytest.mark.parametrize("name", ["", "-club", "club-", "club.local", "clüb", "x" * 64, "a b"])
def test_invalid_names(name: str) -> None:
    assert not valid_name(name)


def test_serve_starts_no_announcer_for_a_server_on_loopback_only() -> None:
    """The test harnesses listen on 127.0.0.1: they never send a multicast packet."""
    assert _announcer("crapette", "127.0.0.1", 8000, ()) is None
    announcer = _announcer("Crapette", "0.0.0.0", 8000, ())
    assert announcer is not None and announcer.proc is None  # started only by `serve`
    assert announcer.config.name == "crapette"
    assert announcer.config.announcement(()).url == "http://crapette.local:8000/"


def test_serve_refuses_a_name_that_is_no_dns_label() -> None:
    with pytest.raises(click.BadParameter, match="--announce-name|letters"):
        _announcer("club.local", "0.0.0.0", 8000, ())
