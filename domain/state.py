"""The states the events fold into: `MatchState` holding the current `GameState`.

Both are immutable. `GameState` is a slotted record copied field by field (`_evolved`) rather than
through `dataclasses.replace`: `evolve` runs once per event and must stay cheap. Piles are a tuple
of 24 tuples in `domain.piles.ALL_PILES` order (index -1 of a pile is its top).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from domain.actions import Action
from domain.cards import Card
from domain.derived import Derived
from domain.piles import HAND, INDEX, RESERVE, SHOWN, WASTE, layout_piles
from domain.ruleset import Ruleset

Piles = tuple[tuple[Card, ...], ...]


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


_SLOTS = (
    "ruleset",
    "game_index",
    "seed",
    "packs",
    "commitment",
    "first_player",
    "first_player_reason",
    "p",
    "to_move",
    "turn_number",
    "over",
    "result",
    "window",
    "turn_productive",
    "turn_founded",
    "turn_start_cards",
    "streaks",
    "targets",
    "quiet_turns",
    "seen",
    "hhash",
    "emptied",
    "wrong_calls",
    "skip_next",
    "draw_offer",
    "started_at_ms",
    "turn_started_at_ms",
    "move_started_at_ms",
    "last_event",
    "derived",
)


# Equality compares the game, not what has been computed from it so far.
_COMPARED = tuple(name for name in _SLOTS if name != "derived")


class _Fields:
    """The slots of a game state (see `GameState`)."""

    __slots__ = _SLOTS

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
    """

    __slots__ = ()

    def __init__(self, **values: Any) -> None:
        setter = object.__setattr__
        values.setdefault("derived", Derived())
        for name in _SLOTS:
            setter(self, name, values[name])

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("game states are immutable; evolve makes new ones")

    def _evolved(self, **changes: Any) -> GameState:
        """A copy with `changes` (engine-internal): `_moved`'s copy, then the changed fields
        written into it before anyone sees it. Its derived data starts empty unless `changes`
        hands some on (``derived=…``)."""
        derived = changes.pop("derived", None)
        new = self._moved(
            self.p,
            self.seen,
            self.hhash,
            self.emptied,
            self.turn_productive,
            self.turn_founded,
            self.window,
            self.move_started_at_ms,
            self.last_event,
            Derived() if derived is None else derived,
        )
        setter = object.__setattr__  # past the write guard: `new` is fresh
        for name, value in changes.items():
            setter(new, name, value)
        return new

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
        """A copy with the fields one card move changes (the commonest event): every field written
        out (no keyword dictionary, no `setattr` loop) into a writable twin of the class, which
        then becomes a GameState."""
        new = object.__new__(_Writable)
        new.ruleset = self.ruleset
        new.game_index = self.game_index
        new.seed = self.seed
        new.packs = self.packs
        new.commitment = self.commitment
        new.first_player = self.first_player
        new.first_player_reason = self.first_player_reason
        new.p = p
        new.to_move = self.to_move
        new.turn_number = self.turn_number
        new.over = self.over
        new.result = self.result
        new.window = window
        new.turn_productive = turn_productive
        new.turn_founded = turn_founded
        new.turn_start_cards = self.turn_start_cards
        new.streaks = self.streaks
        new.targets = self.targets
        new.quiet_turns = self.quiet_turns
        new.seen = seen
        new.hhash = hhash
        new.emptied = emptied
        new.wrong_calls = self.wrong_calls
        new.skip_next = self.skip_next
        new.draw_offer = self.draw_offer
        new.started_at_ms = self.started_at_ms
        new.turn_started_at_ms = self.turn_started_at_ms
        new.move_started_at_ms = move_started_at_ms
        new.last_event = last_event
        new.derived = derived
        new.__class__ = GameState  # type: ignore[assignment]
        return new  # type: ignore[return-value]

    @property
    def piles(self) -> dict[str, tuple[Card, ...]]:
        """Every pile of the layout by name, bottom to top."""
        return {name: self.p[INDEX[name]] for name in layout_piles(self.ruleset.houses_per_player)}

    def pile(self, name: str) -> tuple[Card, ...]:
        return self.p[INDEX[name]]

    @property
    def last_action_index(self) -> int | None:
        return self.window.first_index if self.window is not None else None

    @property
    def last_fault(self) -> str | None:
        return self.window.fault if self.window is not None else None

    def loose_cards(self, seat: int) -> int:
        """Cards in the seat's hand, X and waste."""
        p = self.p
        return len(p[HAND[seat]]) + len(p[SHOWN[seat]]) + len(p[WASTE[seat]])

    def penalty(self, seat: int) -> int:
        """2 per reserve card + 1 per hand, X and waste card (docs/spec/rules.md §8)."""
        return 2 * len(self.p[RESERVE[seat]]) + self.loose_cards(seat)

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


class _Writable(_Fields):
    """A game state's slots without the write guard: only `_evolved` fills one, then turns it into
    a GameState (same layout, so the class can be swapped). Plain attribute writes are several
    times cheaper than `object.__setattr__`, and this copy runs once per event."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class MatchState:
    """A match: its ruleset and players, totals, finished games' scores and the current game."""

    ruleset: Ruleset
    players: tuple[str, str]
    match_id: str
    games_played: int
    totals: tuple[int, int]
    wins: tuple[int, int]
    game_scores: tuple[tuple[int, int], ...]
    game: GameState | None
    finished: bool
    winner: int | None
    version: int
    started_at_ms: int
    previous_first: int | None = None

    def with_game(self, game: GameState, version: int) -> MatchState:
        """The same match with another current game (engine-internal, once per event: a frozen
        dataclass's `__init__` costs several times more than these plain slot writes)."""
        new = object.__new__(_MatchWritable)
        new.ruleset = self.ruleset
        new.players = self.players
        new.match_id = self.match_id
        new.games_played = self.games_played
        new.totals = self.totals
        new.wins = self.wins
        new.game_scores = self.game_scores
        new.game = game
        new.finished = self.finished
        new.winner = self.winner
        new.version = version
        new.started_at_ms = self.started_at_ms
        new.previous_first = self.previous_first
        new.__class__ = MatchState  # type: ignore[assignment]
        return new  # type: ignore[return-value]


class _MatchWritable:
    """MatchState's slots without the frozen guard (see `MatchState.with_game`)."""

    __slots__ = MatchState.__slots__
    ruleset: Ruleset
    players: tuple[str, str]
    match_id: str
    games_played: int
    totals: tuple[int, int]
    wins: tuple[int, int]
    game_scores: tuple[tuple[int, int], ...]
    game: GameState | None
    finished: bool
    winner: int | None
    version: int
    started_at_ms: int
    previous_first: int | None
