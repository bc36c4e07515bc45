"""The judge's scale (docs/evaluator.md § The judge), written by `crapette bench judge --fit`.

These coefficients were fitted on 2026-12-07 by the same regression (`fit.fit_scale`: the game's
outcome on the chosen action's search score, every 4th decision) over 2,988 decisions of 54
self-play games of `bench.judge_bench.FIT_PAIRINGS`, gathered by a one-off script before the
command existed; `crapette bench judge --fit --fit-games 48` replaces them (a run of it to its
end did not fit in that session: docs/benchmarks.md § Is the judge right?)."""

SCALE: dict[str, float] = {"a": 0.0155, "b": 0.2268}
