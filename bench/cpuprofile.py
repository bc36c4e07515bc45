"""`python -m bench.cpuprofile OUT serve ...`: `crapette serve` under a sampling profiler
that counts CPU time, for `crapette bench server --profile OUT`.

Every 4 ms or so of the process's CPU time (ITIMER_PROF: user + system time; the kernel's tick
rounds the 1 ms asked for up to its own), the stack of the running Python frame is counted. A
wall-clock sampler such as py-spy counts a frame whenever the process is runnable, and on a
loaded machine it is often runnable but waiting for a core: it blamed `send()` for 40 % of the
server's time, when the server's system time was 11 % of its CPU. Under eventlet one OS thread
runs every greenthread, so the interrupted frame is the one that was using the CPU.

On SIGTERM (how the benchmark stops its servers) the counts go to OUT as collapsed stacks, one
line per stack, `frame;frame;... count` (what flamegraph.pl and speedscope read), and the
process exits. Linux only (the ITIMER_PROF signal)."""

from __future__ import annotations

import sys

from server.runtime import patches

if __name__ == "__main__" and patches.wants_eventlet(sys.argv[2:]):
    patches.eventlet_first()  # before flask is imported, as `crapette serve` does

import collections  # noqa: E402
import os  # noqa: E402
import signal  # noqa: E402
from pathlib import Path  # noqa: E402
from types import FrameType  # noqa: E402

INTERVAL_S = 0.001


class Sampler:
    def __init__(self, out: Path) -> None:
        self.out = out
        self.stacks: collections.Counter[str] = collections.Counter()

    def sample(self, _signum: int, frame: FrameType | None) -> None:
        names = []
        while frame is not None:
            code = frame.f_code
            names.append(f"{code.co_name} ({_short(code.co_filename)})")
            frame = frame.f_back
        self.stacks[";".join(reversed(names))] += 1

    def start(self) -> None:
        signal.signal(signal.SIGPROF, self.sample)
        signal.signal(signal.SIGTERM, self.stop)
        signal.setitimer(signal.ITIMER_PROF, INTERVAL_S, INTERVAL_S)

    def stop(self, *_args: object) -> None:
        signal.setitimer(signal.ITIMER_PROF, 0)
        lines = [f"{stack} {count}\n" for stack, count in self.stacks.most_common()]
        self.out.write_text("".join(lines), encoding="utf-8")
        os._exit(0)


def _short(filename: str) -> str:
    """A file's path from the package it belongs to (site-packages or this repository)."""
    for marker in ("site-packages/", "/server/", "/domain/", "/eventstore/"):
        head, found, tail = filename.rpartition(marker)
        if found:
            return tail if marker == "site-packages/" else marker.strip("/") + "/" + tail
    return filename


def summary(collapsed: str, top: int = 25) -> list[str]:
    """The `top` functions by the share of samples they are on the stack of (inclusive) and at
    the top of (self), from collapsed stacks."""
    inclusive: collections.Counter[str] = collections.Counter()
    own: collections.Counter[str] = collections.Counter()
    total = 0
    for line in collapsed.splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack:
            continue
        n = int(count)
        total += n
        frames = stack.split(";")
        for name in set(frames):
            inclusive[name] += n
        own[frames[-1]] += n
    if not total:
        return ["no samples"]
    lines = [f"{total} samples; inclusive:"]
    lines += [f"{100 * n / total:5.1f}% {name}" for name, n in inclusive.most_common(top)]
    lines.append("self:")
    lines += [f"{100 * n / total:5.1f}% {name}" for name, n in own.most_common(top)]
    return lines


def main() -> None:
    out = Path(sys.argv[1])
    sys.argv = ["crapette", *sys.argv[2:]]
    Sampler(out).start()
    from server.cli import main as crapette

    crapette()


if __name__ == "__main__":
    main()
