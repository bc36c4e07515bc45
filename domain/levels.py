"""The vocabulary that moves, priorities and derived data share: a `Step` and a `Level`.

A leaf module (it imports nothing of the domain), so that `derived`, `state`, `moves` and
`priority` import one way only: priority → moves → state → derived → levels (pyproject.toml,
`[tool.importlinter]`, checks it).
"""

from __future__ import annotations

from typing import NamedTuple

Step = tuple[int, int]  # (source pile index, destination pile index)


class Level(NamedTuple):
    """What priority demands now (computed by `domain.priority.priority`).

    `required`/`required_rule`: when set, every action but these moves breaks that rule (and a
    right call plays the first of them, or the one the caller names). Otherwise `turn_rule` /
    `end_rule` name what turning / discarding or passing would break, with the compulsory moves
    `turn_moves` / `end_moves`; `bad_steps` are moves that break `bad_rule` in themselves.
    """

    required: tuple[Step, ...] | None = None
    required_rule: str | None = None
    turn_rule: str | None = None
    turn_moves: tuple[Step, ...] = ()
    end_rule: str | None = None
    end_moves: tuple[Step, ...] = ()
    bad_steps: frozenset[Step] = frozenset()
    bad_rule: str | None = None


FREE = Level()  # no priority binds: any legal action respects it
