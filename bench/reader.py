"""One anonymous client of `crapette bench server` (a): loops on a long match's replay and its
view at version 1 with no ETag, the worst kind, until it gets SIGTERM; then writes how many
answers of each status it got. A process of its own, so that its work (reading replays of
hundreds of KB) never delays the measured clients in the benchmark's own event loop.

    python -m bench.reader URL MATCH_ID COUNTS_PATH"""

from __future__ import annotations

import json
import signal
import sys
from types import FrameType


def main(url: str, match_id: str, counts_path: str) -> None:
    stopping = [False]

    def stop(_signum: int, _frame: FrameType | None) -> None:
        stopping[0] = True

    signal.signal(signal.SIGTERM, stop)  # first: a stop while importing still writes counts
    import requests

    paths = [f"/api/matches/{match_id}/replay", f"/api/matches/{match_id}/view?version=1"]
    counts: dict[str, int] = {}
    index = 0
    with requests.Session() as http:
        while not stopping[0]:
            try:
                status = http.get(url + paths[index % 2], timeout=30).status_code
            except requests.RequestException:
                status = 0
            counts[str(status)] = counts.get(str(status), 0) + 1
            if index == 0:  # the benchmark measures once every reader is under way
                with open(counts_path + ".ready", "w", encoding="utf-8"):
                    pass
            index += 1
    with open(counts_path, "w", encoding="utf-8") as out:
        json.dump(counts, out)


if __name__ == "__main__":
    main(*sys.argv[1:4])
