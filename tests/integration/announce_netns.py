"""Run inside a network namespace of its own (`unshare -n`, tests/integration/test_announce.py),
where the only interface is loopback: nothing sent here can leave the machine.

A real `crapette serve --host 0.0.0.0 --announce-on lo` announces itself; a separate resolver
process (zeroconf, as a phone's or a laptop's resolver asks) looks up `crapette.local` and the
service. Then a second loopback address appears, as a new network would, and the announcer
must announce it too; once the server stops, its goodbye withdraws the name. Prints one JSON
object of what it saw."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from typing import Any

import requests

from bench.procs import free_port, stop_process
from tests.conftest import REPO_ROOT

RESOLVE = """
import json, sys
from zeroconf import AddressResolverIPv4, IPVersion, Zeroconf
zeroconf = Zeroconf(interfaces=["127.0.0.1"], ip_version=IPVersion.V4Only)
try:
    host = AddressResolverIPv4("crapette.local.")
    found = host.request(zeroconf, 2000)
    info = zeroconf.get_service_info("_http._tcp.local.", sys.argv[1], timeout=2000)
    service = None if info is None else {
        "port": info.port, "server": info.server, "addresses": info.parsed_addresses(),
        "path": info.properties.get(b"path", b"").decode(),
    }
    print(json.dumps({"addresses": host.parsed_addresses() if found else [], "service": service}))
finally:
    zeroconf.close()
"""


def run(command: list[str]) -> None:
    subprocess.run(command, check=True)


def resolve(instance: str) -> dict[str, Any]:
    """What a fresh resolver (no cache) finds now."""
    done = subprocess.run(
        [sys.executable, "-c", RESOLVE, instance], capture_output=True, text=True, timeout=30
    )
    if done.returncode:
        raise RuntimeError(done.stderr)
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def until(instance: str, wanted: list[str], timeout_s: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while True:
        seen = resolve(instance)
        if sorted(seen["addresses"]) == wanted or time.monotonic() > deadline:
            return seen
        time.sleep(0.5)


def main() -> None:
    run(["ip", "link", "set", "lo", "up"])
    run(["ip", "link", "set", "lo", "multicast", "on"])
    port = free_port()
    log_path = sys.argv[1]
    command = [
        sys.executable, "-m", "server", "serve", "--host", "0.0.0.0", "--port", str(port),
        "--store", "memory://", "--announce-on", "lo", "--quiet",
    ]  # fmt: skip
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(command, cwd=REPO_ROOT, stdout=log, stderr=log)
    instance = f"Crapette on {socket.gethostname()}._http._tcp.local."
    report: dict[str, Any] = {}
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                info = requests.get(f"http://127.0.0.1:{port}/api/server-info", timeout=1)
                report["server_info"] = info.json()
                break
            except requests.RequestException:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise
                time.sleep(0.2)
        report["first"] = until(instance, ["127.0.0.1"], 10)
        report["port"] = port
        # A second address, as a laptop joining another network gets one.
        run(["ip", "addr", "add", "127.0.0.2/8", "dev", "lo"])
        report["changed"] = until(instance, ["127.0.0.1", "127.0.0.2"], 20)
        report["second_address"] = requests.get(f"http://127.0.0.2:{port}/", timeout=5).status_code
        announcers = _announcers(proc.pid)
        report["announcers"] = len(announcers)
    finally:
        stop_process(proc)
    report["after_stop"] = until(instance, [], 10)
    time.sleep(1)
    report["announcers_left"] = [pid for pid in announcers if os.path.exists(f"/proc/{pid}")]
    print(json.dumps(report))


def _announcers(server_pid: int) -> list[int]:
    """The server's child processes that are its announcer."""
    found = []
    for task in os.listdir(f"/proc/{server_pid}/task"):
        with open(f"/proc/{server_pid}/task/{task}/children") as children:
            for pid in children.read().split():
                with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                    if b"server.adapters.announce" in cmdline.read():
                        found.append(int(pid))
    return found


if __name__ == "__main__":
    main()
