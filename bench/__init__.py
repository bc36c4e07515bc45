"""`crapette bench engine|store|server|browser|replay|analysis|judge|eval|bots|abuse`: benchmarks
printing ratios against a baseline measured in the same run."""

from __future__ import annotations

import click

from bench.abuse import abuse
from bench.analysis_bench import analysis
from bench.browser import browser
from bench.engine import engine
from bench.evaluator_bench import bots_cmd, eval_cmd
from bench.judge_bench import judge
from bench.loopstall import replay
from bench.server_bench import server as server_cmd
from bench.store import store


@click.group()
def bench() -> None:
    """Benchmarks (ratios against a baseline measured in the same run)."""


for _command in (
    engine,
    store,
    server_cmd,
    browser,
    replay,
    analysis,
    judge,
    eval_cmd,
    bots_cmd,
    abuse,
):
    bench.add_command(_command)
