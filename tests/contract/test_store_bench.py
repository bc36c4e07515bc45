"""`crapette bench store` runs end to end on tiny settings and prints every figure as JSON (a
smoke test so the benchmark cannot rot; the figures themselves are not judged here)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from bench.store import store


def test_bench_store_prints_every_figure_as_json() -> None:
    args = ["--json", "--appends", "20", "--events", "30", "--repeats", "2", "--postgres-url", ""]
    result = CliRunner().invoke(store, args)
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    sqlite = figures["sqlite"]
    for key in [
        "store_appends_per_s",
        "raw_appends_per_s",
        "store_rebuild_ms",
        "eventsourcing_rebuild_ms",
    ]:
        assert sqlite[key] > 0, key
    ratio = sqlite["store_appends_per_s"] / sqlite["raw_appends_per_s"]
    assert abs(sqlite["append_ratio"] - ratio) < 0.01
    assert "skipped" in sqlite["real_match"] or sqlite["real_match"]["domain_events"] > 0
    assert sqlite["rebuild_events"] == 30
    assert figures["postgres"] == {"skipped": "no --postgres-url given"}
