"""Bots playing each other in-process, straight through `decide`/`evolve`, with the invariants of
the rules checked after every event (so `crapette selfplay` doubles as a soak test of the engine).

The clock is simulated: every action advances it by a fixed step (plus the bot's call delay for a
call), so a run is repeatable from its seed.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from domain.actions import Action, Call
from domain.bots.errors import BotError

START_MS = 1_764_000_000_000  # a fixed epoch: records of a selfplay run are repeatable
STEP_MS = 100  # small, so a move time limit never runs out in simulated time
MAX_ACTIONS_PER_GAME = 20_000  # far beyond any real game; reaching it means the game never ends
CARDS = 104


class PlayingBot(Protocol):
    @property
    def name(self) -> str: ...

    def choose(self, view: Any) -> Action | None: ...

    def delay_hint_ms(self, action: Action) -> int: ...


class InvariantError(BotError):
    """The engine (or a bot) broke a rule that must always hold: a bug, never a game outcome."""


@dataclass
class GameReport:
    """What one game came to."""

    match_id: str
    game_index: int
    seed: str
    bots: tuple[str, str]  # bot name by seat
    winner: int | None = None  # seat; None for a stalemate
    outcome: str = ""  # event type that ended the game
    actions: int = 0
    faults: Counter[int] = field(default_factory=Counter)  # by offender seat
    calls: Counter[str] = field(default_factory=Counter)  # "right" / "wrong"
    score: tuple[int, int] = (0, 0)


@dataclass
class MatchReport:
    match_id: str
    bots: tuple[str, str]
    events: list[Any] = field(default_factory=list)
    games: list[GameReport] = field(default_factory=list)
    state: Any = None


def derive_seed(root: str, *parts: object) -> str:
    """A game's deal seed (64 hex digits) derived from the run's seed and the game's place."""
    text = "/".join([root, *map(str, parts)])
    return hashlib.sha256(text.encode()).hexdigest()


def check_cards(state: Any) -> None:
    """All 104 cards present exactly once (docs/spec/rules.md §1)."""
    game = state.game
    if game is None:
        return
    cards = [card for name in _pile_names(game) for card in game.piles[name]]
    if len(cards) != CARDS or len(set(cards)) != CARDS:
        seen = Counter(cards)
        doubles = sorted(str(c) for c, n in seen.items() if n > 1)
        raise InvariantError(
            f"game {state.games_played}: {len(cards)} cards on the table, {len(seen)} distinct"
            + (f", twice: {' '.join(doubles)}" if doubles else "")
        )


def _pile_names(game: Any) -> Sequence[str]:
    return list(game.piles.keys())


def _game_over(state: Any) -> bool:
    return state.game is None or bool(state.game.over)


def play_match(
    ruleset: Any,
    bots: tuple[PlayingBot, PlayingBot],
    match_id: str,
    seeds: Iterator[str],
    max_games: int,
    on_game: Callable[[GameReport], None] | None = None,
    check_every_event: bool = True,
    waiting: Sequence[PlayingBot] = (),
    watch: Callable[[Any], None] | None = None,
) -> MatchReport:
    """Play one match (until it is won or `max_games` games were played) and report it. At a
    rotation table (docs/spec/rules.md §10) the `waiting` bots join the queue at the start, and
    each game is played by the pair the engine seats. `watch`, when given, is shown the whole
    match state before every decision: for a benchmark's bounds (an all-knowing player), never
    for a bot that plays people."""
    import domain

    report = MatchReport(match_id, (bots[0].name, bots[1].name))
    by_name = {bot.name: bot for bot in (*bots, *waiting)}
    now = START_MS
    state = _apply(
        report,
        None,
        domain.StartMatch(match_id, ruleset, (bots[0].name, bots[1].name), now),
        check_every_event,
    )
    for bot in waiting:
        now += STEP_MS
        state = _apply(report, state, domain.JoinQueue(bot.name, now), check_every_event)
    while not state.finished and len(report.games) < max_games:
        seed = next(seeds)
        now += STEP_MS
        state = _apply(report, state, domain.StartGame(seed, None, now), check_every_event)
        pair = (by_name[state.players[0]], by_name[state.players[1]])
        game = GameReport(match_id, state.games_played, seed, (pair[0].name, pair[1].name))
        state, now = _play_game(report, state, pair, game, now, check_every_event, watch)
        report.games.append(game)
        if on_game is not None:
            on_game(game)
    report.state = state
    if domain.fold(report.events) != state:
        raise InvariantError(f"{match_id}: folding the stored events does not give the live state")
    return report


def _play_game(
    report: MatchReport,
    state: Any,
    bots: tuple[PlayingBot, PlayingBot],
    game: GameReport,
    now: int,
    check_every_event: bool,
    watch: Callable[[Any], None] | None = None,
) -> tuple[Any, int]:
    import domain

    while not _game_over(state):
        if watch is not None:
            watch(state)
        if game.actions >= MAX_ACTIONS_PER_GAME:
            raise InvariantError(
                f"{report.match_id} game {game.game_index}: no end after {game.actions} actions"
            )
        mover = state.game.to_move
        chosen: Action | None = None
        # The opponent first: a call has to come before the offender's next action.
        for seat in (1 - mover, mover):
            chosen = bots[seat].choose(domain.view(state, seat))
            if chosen is not None:
                break
        if chosen is None:
            raise InvariantError(
                f"{report.match_id} game {game.game_index}: neither bot acts "
                f"(seat {mover} to move, legal: {domain.legal_actions(state, mover)})"
            )
        now += STEP_MS
        if isinstance(chosen, Call):
            now += bots[chosen.seat].delay_hint_ms(chosen)
        try:
            state = _apply(report, state, domain.Act(chosen, now), check_every_event, game)
        except domain.RulesError as exc:
            raise InvariantError(
                f"{report.match_id} game {game.game_index}: bot {bots[chosen.seat].name} chose "
                f"{chosen.notation()} which the engine refuses ({exc})"
            ) from exc
        game.actions += 1
    return state, now


def _apply(
    report: MatchReport,
    state: Any,
    command: Any,
    check_every_event: bool,
    game: GameReport | None = None,
) -> Any:
    import domain

    events = domain.decide(state, command)
    for event in events:
        state = domain.evolve(state, event)
        report.events.append(event)
        if game is not None:
            _note(game, event)
        if check_every_event:
            check_cards(state)
    return state


def _note(game: GameReport, event: Any) -> None:
    kind = type(event).__name__
    fault = getattr(event, "fault", None)
    if fault and kind in ("CardMoved", "HandCardTurned", "CardDiscarded", "Passed"):
        game.faults[event.seat] += 1
    if kind == "CrapetteCalled":
        game.calls[event.verdict] += 1
    if kind in ("GameWon", "GameResigned"):
        game.winner = event.winner
        game.outcome = kind
        game.score = tuple(event.score)
    if kind == "GameStalemated":
        game.outcome = kind
        game.score = tuple(event.score)
