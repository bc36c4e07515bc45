"""`crapette bench engine|store|server|browser|replay|analysis|judge|eval|bots`: benchmarks
printing ratios against a baseline measured in the same run."""

from __future__ import annotations

import click

from server.bench.analysis_bench import analysis
from server.bench.browser import browser
from server.bench.engine import engine
from server.bench.evaluator_bench import bots_cmd, eval_cmd
from server.bench.judge_bench import judge
from server.bench.loopstall import replay
from server.bench.server_bench import server as server_cmd
from server.bench.store import store


@click.group()
def bench() -> None:
    """Benchmarks (ratios against a baseline measured in the same run)."""


for _command in (engine, store, server_cmd, browser, replay, analysis, judge, eval_cmd, bots_cmd):
    bench.add_command(_command)
