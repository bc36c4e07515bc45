"""The states the events fold into: `MatchState` holding the current `GameState`.

Both are immutable and cheap to copy: `evolve` makes a new one for every event. `MatchState` is a
named tuple whose most changed fields come last, so its common copy is one slice of the old tuple
plus the new values (`with_game`). `GameState` is a slotted record whose fields are read
constantly by the rules, and a slot reads about twice as fast as a named tuple's field; its copies
go through `_sealed` (the measurement is in its docstring). Piles are a tuple of 30 tuples in
`domain.piles.ALL_PILES` order (index -1 of a pile is its top).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from domain.actions import Action
from domain.cards import Card
from domain.derived import Derived
from domain.piles import (
    HAND,
    INDEX,
    RESERVE,
    SECOND_HAND,
    SECOND_RESERVE,
    SHOWN,
    THIRD_HAND,
    WASTE,
    layout_piles,
)
from domain.ruleset import Ruleset

Piles = tuple[tuple[Card, ...], ...]


def hand_cards(p: Piles, seat: int) -> int:
    """Cards in the seat's hand, or in all three of them (`hands_per_player=3`, rules.md §10:
    I and J are always empty with one hand)."""
    return len(p[HAND[seat]]) + len(p[SECOND_HAND[seat]]) + len(p[THIRD_HAND[seat]])


def reserve_count(p: Piles, seat: int) -> int:
    """Cards in the seat's reserve and second reserve (§10) of the table `p`."""
    return len(p[RESERVE[seat]]) + len(p[SECOND_RESERVE[seat]])


def loose_count(p: Piles, seat: int) -> int:
    """Cards in the seat's hand(s, §10), X and waste of the table `p`: what a stalemate target
    and a score count."""
    return hand_cards(p, seat) + len(p[SHOWN[seat]]) + len(p[WASTE[seat]])


@dataclass(frozen=True, slots=True)
class GameResult:
    """How a game ended. `kind`: ``win``, ``stalemate`` or ``resign``; `score` is per seat."""

    kind: str
    winner: int | None
    reason: str
    score: tuple[int, int]
    penalties: tuple[int, int] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "winner": self.winner,
            "reason": self.reason,
            "score": list(self.score),
            "penalties": list(self.penalties) if self.penalties is not None else None,
        }


class CallWindow(NamedTuple):
    """The most recent play action, which the opponent may call "Crapette!" on.

    A named tuple: one is made for every action, and tuples are the cheapest immutable records.
    `base` is the game as it was before the action (what a right call restores; kept only for
    faults); `events` are the action's events so far (what a right call voids); `first_index`
    is the stream index of its first event.
    """

    offender: int
    first_index: int
    action: Action
    fault: str | None
    events: tuple[Any, ...]
    base: GameState | None  # kept only when the action may be voided (a fault)
    turn_over: bool = False  # a discard or pass: open until the caller's own first action
    called: bool = False  # the opponent called it (wrongly): no second call
    self_called: bool = False  # the offender called it himself: his one call on it is spent


class _Spec:
    """The fields of a game state, declared once: `_Fields` takes its slots from here."""

    __slots__ = ()

    ruleset: Ruleset
    game_index: int
    seed: str | None
    packs: tuple[tuple[Card, ...], tuple[Card, ...]]
    commitment: str | None
    first_player: int
    first_player_reason: str
    p: Piles
    to_move: int
    turn_number: int
    over: bool
    result: GameResult | None
    window: CallWindow | None
    turn_productive: bool
    turn_founded: bool
    turn_start_cards: int
    streaks: tuple[int, int]
    targets: tuple[int, int]
    quiet_turns: int
    seen: frozenset[int]
    hhash: int  # Zobrist hash of the houses (domain.moves.houses_hash)
    emptied: frozenset[int]  # houses the mover emptied this turn (refill_at_once, spec §11)
    wrong_calls: tuple[int, int]
    skip_next: tuple[bool, bool]
    draw_offer: int | None
    started_at_ms: int
    turn_started_at_ms: int
    move_started_at_ms: int
    last_event: Any  # the most recent move, turn, discard, pass or call (for views)
    derived: Derived  # legal moves, priorities, indexes: computed on first use (domain.derived)


_FIELDS = tuple(_Spec.__annotations__)
# Equality compares the game, not what has been computed from it so far.
_COMPARED = tuple(name for name in _FIELDS if name != "derived")


class _Fields(_Spec):
    __slots__ = _FIELDS


class GameState(_Fields):
    """One game's position and bookkeeping. Immutable: every change makes a new state.

    - `p`: the piles (see module doc); `piles` gives them by name.
    - `turn_productive` / `turn_founded`: this turn moved a card out of the mover's reserve or X,
      or onto a foundation from anywhere but his waste / onto a foundation (docs/spec/rules.md
      §8 null turns, §11, and the 400-turn cap).
    - `streaks`, `targets`: each seat's run of null turns and the length that stalemates it.
    - `seen`: hashes of the house layouts seen since the last move that was not house to house
      (the in-turn repetition guard; every other kind of action makes the position new for good).
    - `emptied`: the houses the player to move has emptied during this turn, by any move: the
      ones `empty_house=refill_at_once` orders refilled before anything else
      (docs/spec/rules.md §11).
    - `derived`: what is computed from the state on first use (`domain.derived`); it takes no
      part in equality.
    """

    __slots__ = ()

    def __init__(self, **values: Any) -> None:
        setter = object.__setattr__
        values.setdefault("derived", Derived())
        for name in _FIELDS:
            setter(self, name, values[name])

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("game states are immutable; evolve makes new ones")

    def _evolved(self, **changes: Any) -> GameState:
        """A copy with `changes` (engine-internal). Its derived data starts empty unless
        `changes` hands some on (``derived=…``)."""
        new = _unsealed_copy(self)
        for name, value in changes.items():
            setattr(new, name, value)
        if "derived" not in changes:
            new.derived = Derived()
        return _sealed(new)

    def _moved(
        self,
        p: Piles,
        seen: frozenset[int],
        hhash: int,
        emptied: frozenset[int],
        turn_productive: bool,
        turn_founded: bool,
        window: CallWindow | None,
        move_started_at_ms: int,
        last_event: Any,
        derived: Derived,
    ) -> GameState:
        """A copy with the fields one card move (or hand card) changes, the commonest events."""
        new = _unsealed_copy(self)
        new.p = p
        new.seen = seen
        new.hhash = hhash
        new.emptied = emptied
        new.turn_productive = turn_productive
        new.turn_founded = turn_founded
        new.window = window
        new.move_started_at_ms = move_started_at_ms
        new.last_event = last_event
        new.derived = derived
        return _sealed(new)

    @property
    def piles(self) -> dict[str, tuple[Card, ...]]:
        """Every pile of the layout by name, bottom to top."""
        ruleset = self.ruleset
        names = layout_piles(
            ruleset.houses_per_player, ruleset.reserves_per_player, ruleset.hands_per_player
        )
        return {name: self.p[INDEX[name]] for name in names}

    def pile(self, name: str) -> tuple[Card, ...]:
        return self.p[INDEX[name]]

    @property
    def last_action_index(self) -> int | None:
        return self.window.first_index if self.window is not None else None

    @property
    def last_fault(self) -> str | None:
        return self.window.fault if self.window is not None else None

    def loose_cards(self, seat: int) -> int:
        """Cards in the seat's hand(s, §10), X and waste."""
        return loose_count(self.p, seat)

    def reserve_cards(self, seat: int) -> int:
        """Cards in the seat's reserve and second reserve (§10)."""
        return reserve_count(self.p, seat)

    def penalty(self, seat: int) -> int:
        """2 per reserve card (of either reserve, §10) + 1 per hand, X and waste card
        (docs/spec/rules.md §8)."""
        return 2 * self.reserve_cards(seat) + self.loose_cards(seat)

    def __repr__(self) -> str:
        return (
            f"<GameState game {self.game_index} turn {self.turn_number} seat {self.to_move}"
            f"{' over' if self.over else ''}>"
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in _COMPARED)

    def __hash__(self) -> int:
        return hash((self.p, self.to_move, self.turn_number, self.over))


class _Unsealed(_Fields):
    """A game state being filled in: the same slots without the write guard (see `_sealed`)."""

    __slots__ = ()


def _unsealed_copy(state: GameState) -> _Unsealed:
    """Every field of `state` copied into a writable record: written out, no loop, because this
    runs for every event."""
    new = object.__new__(_Unsealed)
    new.ruleset = state.ruleset
    new.game_index = state.game_index
    new.seed = state.seed
    new.packs = state.packs
    new.commitment = state.commitment
    new.first_player = state.first_player
    new.first_player_reason = state.first_player_reason
    new.p = state.p
    new.to_move = state.to_move
    new.turn_number = state.turn_number
    new.over = state.over
    new.result = state.result
    new.window = state.window
    new.turn_productive = state.turn_productive
    new.turn_founded = state.turn_founded
    new.turn_start_cards = state.turn_start_cards
    new.streaks = state.streaks
    new.targets = state.targets
    new.quiet_turns = state.quiet_turns
    new.seen = state.seen
    new.hhash = state.hhash
    new.emptied = state.emptied
    new.wrong_calls = state.wrong_calls
    new.skip_next = state.skip_next
    new.draw_offer = state.draw_offer
    new.started_at_ms = state.started_at_ms
    new.turn_started_at_ms = state.turn_started_at_ms
    new.move_started_at_ms = state.move_started_at_ms
    new.last_event = state.last_event
    new.derived = state.derived
    return new


def _sealed(new: _Unsealed) -> GameState:
    """The game state a freshly filled `_Unsealed` becomes: the domain's one class swap.

    A guarded state cannot be written to, so building a copy field by field needs either
    `object.__setattr__` per field or a twin class without the guard whose instances then become
    GameStates (same slots, so the swap is allowed). Measured when this was written (issue 16,
    `crapette bench engine`, classic, best of 3 alternating runs on one loaded machine): with
    GameState as a named tuple instead (immutable without any swap), engine_game_in_baseline_copies
    rose from 79,289 to 89,863 eager and from 339,433 to 390,974 uniform (+13 %, +15 %), mostly
    because reading a named tuple's field costs about twice a slot's; one `object.__setattr__` per
    field costs about 5 times this twin's plain writes.
    """
    new.__class__ = GameState  # type: ignore[assignment]
    return new  # type: ignore[return-value]


# A named tuple's keyword constructor is a Python function; `tuple.__new__` with the class builds
# the same record in C, and `with_game` runs once per event.
_new = tuple.__new__


class Session(NamedTuple):
    """The people of a rotation table (docs/spec/rules.md §10) beyond the seated pair.

    `people` in the order they joined (the first two seated first); `totals` and `wins` are each
    person's, aligned with `people`, whatever seats he played in; `queue` waits for a seat, next
    first; `gone` left the table. `last` is the last seat change (None before the first)."""

    mode: str  # "winner_out" or "loser_out"
    people: tuple[str, ...]
    totals: tuple[int, ...]
    wins: tuple[int, ...]
    queue: tuple[str, ...]
    gone: tuple[str, ...]
    last: Any  # domain.events.SeatsRotated | None

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "people": list(self.people),
            "totals": list(self.totals),
            "wins": list(self.wins),
            "queue": list(self.queue),
        }


class MatchState(NamedTuple):
    """A match: its ruleset and players, totals, finished games' scores and the current game.
    `game` and `version` come last: every event changes them (`with_game`).

    At a rotation table `players` is the pair seated now, `totals` and `wins` their session
    totals, and `session` holds everyone (None at any other table)."""

    ruleset: Ruleset
    players: tuple[str, str]
    match_id: str
    games_played: int
    totals: tuple[int, int]
    wins: tuple[int, int]
    game_scores: tuple[tuple[int, int], ...]
    finished: bool
    winner: int | None
    started_at_ms: int
    previous_first: int | None
    session: Session | None
    game: GameState | None
    version: int

    def with_game(self, game: GameState, version: int) -> MatchState:
        """The same match with another current game (engine-internal, once per event)."""
        state: MatchState = _new(MatchState, self[:-2] + (game, version))
        return state
