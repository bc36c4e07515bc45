"""The process the crash-safety test kills: appends batches in a loop and, after each append has
returned (committed), writes the batch number on stdout. Run: python -m tests.contract.crash_child
URL FIRST_BATCH [COUNT]. Batch i holds 1 + i % 4 events with ids `b{i}-{j}`, in stream
`crash-{i % 3}`. Without COUNT it runs until killed; with it, it stops after COUNT batches (the
multi-process order test runs several at once)."""

from __future__ import annotations

import sys

from eventstore import ANY, NewEvent, open_store


def main(url: str, first: int, count: int | None = None) -> None:
    store = open_store(url)
    out = sys.stdout
    out.write("ready\n")
    out.flush()
    batch = first
    while count is None or batch < first + count:
        size = 1 + batch % 4
        events = [
            NewEvent("Appended", {"batch": batch, "j": j, "size": size}, event_id=f"b{batch}-{j}")
            for j in range(size)
        ]
        store.append(f"crash-{batch % 3}", events, ANY)
        out.write(f"{batch}\n")  # only after the commit returned: an acknowledgement
        out.flush()
        batch += 1
    store.close()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else None)
