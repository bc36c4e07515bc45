"""One client process of `crapette bench abuse` (bench/abuse.py): an abuse of one kind from
the address it is given (`params["address"]`: each kind its own, so that one kind's budget is
not spent by another, nor the measured table's), or the victim (`victim`: small replays from
127.0.0.2, timed), until SIGTERM; then it writes the statuses it was answered (and the
victim's latencies) as JSON.

    python -m bench.abuser KIND URL PARAMS_JSON OUT_PATH"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from pathlib import Path
from types import FrameType
from typing import Any

VICTIM = "127.0.0.2"
VICTIM_EVERY_S = 1.2  # one small replay per 1.2 s: 50 a minute, inside the replay budget


class _Stop:
    def __init__(self) -> None:
        self.event = threading.Event()
        signal.signal(signal.SIGTERM, self._set)

    def _set(self, _signum: int, _frame: FrameType | None) -> None:
        self.event.set()


def _from(address: str) -> Any:
    from requests.adapters import HTTPAdapter

    class FromAbuser(HTTPAdapter):
        def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
            kwargs["source_address"] = (address, 0)
            super().init_poolmanager(*args, **kwargs)

    return FromAbuser()


def abuse(kind: str, url: str, params: dict[str, Any], out: Path) -> None:
    """Abuse until SIGTERM; then write the statuses answered (and the victim's latencies)."""
    import requests

    stop = _Stop()
    counts: dict[str, int] = {}
    lock = threading.Lock()
    latencies: list[float] = []
    waiting_since: list[float] = []  # the victim's request still unanswered, since when

    def count(status: int) -> None:
        with lock:
            counts[str(status)] = counts.get(str(status), 0) + 1

    def request(http: requests.Session, method: str, path: str, **kwargs: Any) -> int:
        with lock:  # whether or not answered before the end
            counts["sent"] = counts.get("sent", 0) + 1
        try:
            return http.request(method, url + path, timeout=300, **kwargs).status_code
        except requests.RequestException:
            return 0

    def session() -> requests.Session:
        http = requests.Session()
        http.mount("http://", _from(params["address"]))
        return http

    def loop(work: Any) -> None:
        with session() as http:
            while not stop.event.is_set():
                work(http)

    threads: list[threading.Thread] = []
    if kind == "upload":
        body = Path(params["upload"]).read_bytes()
        headers = {"Content-Type": "application/json"}
        paths = iter(["/api/records"])

        def upload(http: requests.Session) -> None:
            count(
                request(
                    http, "POST", next(paths, "/api/records/verify"), data=body, headers=headers
                )
            )

        threads.append(threading.Thread(target=loop, args=(upload,)))
    elif kind == "imports":
        record = json.loads(Path(params["imports"]).read_text())
        numbers = iter(range(1, 1_000_000))

        def one_import(http: requests.Session) -> None:
            number = next(numbers)
            # Renamed players: another content hash, so another match each time (and a pid:
            # another run's imports in a reused store are not this one's).
            players = [f"{name} {os.getpid()}-{number}" for name in record["players"]]
            match_id = f"club-imp-{os.getpid()}-{number}"
            body = json.dumps({**record, "match_id": match_id, "players": players})
            headers = {"Content-Type": "application/json"}
            count(request(http, "POST", "/api/records", data=body.encode(), headers=headers))

        threads.append(threading.Thread(target=loop, args=(one_import,)))
    elif kind == "gifs":
        variants = [(g, s) for g in (0, 1) for s in (1, 2, 4, 0.5)]
        for index in range(6):
            mine = variants[index:] + variants[:index]

            def gif(http: requests.Session, mine: list[tuple[int, float]] = mine) -> None:
                game, speed = mine.pop(0)
                mine.append((game, speed))
                path = f"/api/matches/m-benchgif00/game.gif?game={game}&speed={speed:g}"
                count(request(http, "GET", path))

            threads.append(threading.Thread(target=loop, args=(gif,)))
    elif kind == "html":

        def html(http: requests.Session) -> None:
            count(request(http, "GET", "/api/matches/m-benchhuge0/replay.html"))

        threads.append(threading.Thread(target=loop, args=(html,)))
    elif kind == "analysis":
        depths = ["normal", "deep", "quick"]

        def analysis(http: requests.Session) -> None:
            depth = depths[0]
            path = f"/api/matches/m-benchanal0/analysis?depth={depth}"
            status = request(http, "POST", path)
            count(status)
            while status == 202 and not stop.event.wait(0.5):
                status = request(http, "GET", path)
                count(status)
            depths.append(depths.pop(0))
            stop.event.wait(0.5)

        threads.append(threading.Thread(target=loop, args=(analysis,)))
    elif kind == "claims":

        def claims() -> None:
            with session() as http:
                for name in params["names"]:
                    path = f"/api/tournaments/{params['tournament']}/claim"
                    count(request(http, "POST", path, json={"name": name}))

        threads.append(threading.Thread(target=claims))
    elif kind == "victim":
        import http.client

        def victim() -> None:
            index = 0
            while not stop.event.is_set():
                connection = http.client.HTTPConnection(
                    params["host"], params["port"], timeout=300, source_address=(VICTIM, 0)
                )
                started = time.perf_counter()
                with lock:
                    waiting_since[:] = [started]
                try:
                    connection.request("GET", f"/api/matches/{params['ids'][index]}/replay")
                    answer = connection.getresponse()
                    answer.read()
                    status = answer.status
                except OSError:
                    status = 0
                finally:
                    connection.close()
                took = time.perf_counter() - started
                with lock:
                    waiting_since.clear()
                count(status)
                if status == 200:
                    with lock:
                        latencies.append(took)
                index = (index + 1) % len(params["ids"])
                stop.event.wait(max(0.0, VICTIM_EVERY_S - took))

        threads.append(threading.Thread(target=victim))
    else:
        raise SystemExit(f"no abuse {kind!r}")
    for thread in threads:
        thread.daemon = True
        thread.start()
    Path(f"{out}.ready").touch()
    stop.event.wait()
    with lock:
        # A small replay still unanswered at the end has waited at least this long.
        unanswered = [time.perf_counter() - since for since in waiting_since]
        result = {"statuses": counts, "latencies_s": latencies, "unanswered_s": unanswered}
        out.write_text(json.dumps(result))


def main(kind: str, url: str, params: str, out: str) -> None:
    abuse(kind, url, json.loads(params), Path(out))


if __name__ == "__main__":
    main(*sys.argv[1:5])
