"""Matches played through the engine without a server, for tests and golden records.

`random_match` plays random legal actions (calls included, so faults get called or not);
`scripted` plays a list of action texts. Both return the domain events of the match stream,
exactly what the server would have stored.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

import domain
from domain import Act, StartGame, StartMatch


class EngineMatch:
    """A match played through the engine alone (no server): its events so far and the state
    they fold into."""

    def __init__(
        self,
        preset: str = "classic",
        players: tuple[str, str] = ("Ann", "Bob"),
        match_id: str = "m-test",
        at_ms: int = 1_764_435_721_000,
        **options: Any,
    ) -> None:
        ruleset = domain.Ruleset.from_json({"preset": preset, **options})
        self.now = at_ms
        self.events: list[domain.Event] = []
        start = StartMatch(match_id, ruleset, players, self.now)
        events, self.state = domain.decide_and_fold(None, start)
        self.events.extend(events)

    def _do(self, command: domain.Command) -> list[domain.Event]:
        events, self.state = domain.decide_and_fold(self.state, command)
        self.events.extend(events)
        return events

    def deal(self, seed: str | None = None, packs: Sequence[Sequence[str]] | None = None) -> None:
        self.now += 1000
        cards = None
        if packs is not None:
            cards = tuple(
                [domain.Card.parse(code, owner=seat) for code in pack]
                for seat, pack in enumerate(packs)
            )
        self._do(StartGame(seed, cards, self.now))  # type: ignore[arg-type]

    def join(self, name: str, after_ms: int = 300) -> list[domain.Event]:
        """`name` joins a rotation table's queue (docs/spec/rules.md §10)."""
        self.now += after_ms
        return self._do(domain.JoinQueue(name, self.now))

    def leave(self, name: str, after_ms: int = 300) -> list[domain.Event]:
        self.now += after_ms
        return self._do(domain.LeaveQueue(name, self.now))

    def act(self, action: domain.Action, after_ms: int = 700) -> list[domain.Event]:
        self.now += after_ms
        return self._do(Act(action, self.now))

    def say(self, seat: int, text: str, after_ms: int = 700) -> list[domain.Event]:
        return self.act(domain.parse_action(text, seat), after_ms)

    def run(self, lines: Iterable[tuple[int, str]]) -> None:
        for seat, text in lines:
            self.say(seat, text)

    @property
    def game(self) -> domain.GameState:
        """The game in play, or the last one (after the first `deal`)."""
        game = self.state.game
        if game is None:
            raise RuntimeError("no game has been dealt at this table yet")
        return game


def random_match(
    rng: random.Random,
    preset: str = "classic",
    max_games: int = 2,
    max_actions: int = 3000,
    call_rate: float = 0.5,
    name_rate: float = 0.0,
    **options: Any,
) -> list[domain.Event]:
    """A match of random legal play; stops after `max_games` games (so maybe not finished).
    With `name_rate`, that share of the calls name a move (`_named_call`)."""
    table = EngineMatch(preset, **options)
    for _ in range(max_games):
        if table.state.finished:
            break
        table.deal(seed=f"{rng.getrandbits(256):064x}")
        for _ in range(max_actions):
            game = table.game
            if game.over:
                break
            mover = game.to_move
            other = 1 - mover
            calls = [a for a in domain.legal_actions(table.state, other)]
            if calls and rng.random() < call_rate:
                call = rng.choice(calls)
                if isinstance(call, domain.Call) and rng.random() < name_rate:
                    call = _named_call(rng, game, call.seat)
                table.act(call, rng.randrange(100, 3000))
                continue
            choices = domain.legal_actions(table.state, mover)
            if not choices or rng.random() < 0.001:
                choices = [domain.Resign(mover)]
            table.act(rng.choice(choices), rng.randrange(100, 3000))
        else:
            table.act(domain.Resign(table.game.to_move))
    return table.events


def _named_call(rng: random.Random, game: domain.GameState, caller: int) -> domain.Call:
    """A call naming one of the compulsory moves a right call could play (the default among
    them), or a move outside them (which the engine ignores for the default)."""
    window = game.window
    offender = 1 - caller
    names = [(f"R{offender}", f"F{rng.randrange(8)}")]
    if window is not None and window.base is not None:
        steps = domain.compulsory_moves(window.base, window.action)
        names += [(domain.ALL_PILES[src], domain.ALL_PILES[dst]) for src, dst in steps]
    src, dst = rng.choice(names)
    return domain.Call(caller, domain.Move(caller, src, dst))


def obedient_action(state: domain.MatchState, seat: int) -> domain.Action | None:
    """A plain, rule-abiding choice for `seat` (None when it has nothing to do): a foundation
    build, else a reserve card (R or Q) onto a house, else turn, discard or pass, else any other
    move (so it loads the opponent only when it has nothing else to do); never an action the
    priorities call a fault. Good for scripted records: predictable."""
    legal = [
        action
        for action in domain.legal_actions(state, seat)
        if not isinstance(action, domain.Call) and domain.fault_of(state, action) is None
    ]

    def rank(action: domain.Action) -> int:
        if isinstance(action, domain.Move):
            if action.dst.startswith("F"):
                return 0
            return 1 if action.src[0] in "RQ" and action.dst.startswith("T") else 5
        return {domain.Turn: 2, domain.Discard: 3, domain.Pass: 4}.get(type(action), 6)

    return min(legal, key=rank) if legal else None


def play_obediently(table: EngineMatch, actions: int, stop_at_turn_end: bool = False) -> None:
    """Let the player to move play `actions` obedient actions (fewer if the game ends)."""
    for _ in range(actions):
        if table.game.over:
            return
        action = obedient_action(table.state, table.game.to_move)
        if action is None:
            return
        events = table.act(action)
        if stop_at_turn_end and any(isinstance(e, domain.TurnEnded) for e in events):
            return
