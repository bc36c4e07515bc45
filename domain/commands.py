"""Commands: orders given to the engine. `at_ms` is the caller's wall clock (ms since the epoch),
so that the engine itself never reads a clock."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from domain.actions import Action
from domain.cards import Card
from domain.ruleset import Ruleset


@dataclass(frozen=True, slots=True)
class StartMatch:
    match_id: str
    ruleset: Ruleset
    players: tuple[str, str]
    at_ms: int


@dataclass(frozen=True, slots=True)
class StartGame:
    """Deal the next game from `seed` or from two explicit `packs` (top first); exactly one."""

    seed: str | None
    packs: tuple[Sequence[Card], Sequence[Card]] | None
    at_ms: int


@dataclass(frozen=True, slots=True)
class Act:
    """A player's action (or the server's time-out on his behalf)."""

    action: Action
    at_ms: int


@dataclass(frozen=True, slots=True)
class JoinQueue:
    """A person joins a rotation table (docs/spec/rules.md §10) and waits for a seat."""

    name: str
    at_ms: int


@dataclass(frozen=True, slots=True)
class LeaveQueue:
    """A waiting person leaves a rotation table."""

    name: str
    at_ms: int


Command = StartMatch | StartGame | Act | JoinQueue | LeaveQueue
