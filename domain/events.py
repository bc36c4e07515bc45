"""Events: what happened, in the past tense, with what a replay needs to show it.

Every event is a frozen record; `event_to_payload` / `event_from_payload` turn it into JSON-able
data (cards as ``"7H/1"``, packs as plain codes, tuples as lists) and back.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Literal, get_args, get_origin, get_type_hints

from domain.actions import Turn
from domain.cards import Card
from domain.errors import NotationError, quote
from domain.ruleset import Ruleset

Packs = tuple[tuple[Card, ...], tuple[Card, ...]]

# The closed sets of reasons an event may carry (the stored JSON is the plain string). mypy checks
# every event the engine builds; `event_from_payload` refuses any other value; the browser has one
# word per member in each language (tests/unit/web/test_reason_words.py).
TurnEndReason = Literal["discard", "pass", "hand card lock", "time", "crapette", "wrong calls"]
# Why the server discarded a hand card itself (`CardDiscarded.auto`): said with the turn-end words.
DiscardAuto = Literal["hand card lock", "time", "crapette"]
WinReason = Literal["all cards played"]
StalemateReason = Literal[
    "agreed",
    "400 turns without a foundation build",
    "both players went through their hands without progress",
]


class _Named:
    """Gives every event `event.type`, its class name (the stored event's type)."""

    __slots__ = ()

    @property
    def type(self) -> str:
        return type(self).__name__


@dataclass(frozen=True, slots=True)
class MatchStarted(_Named):
    match_id: str
    ruleset: Ruleset
    players: tuple[str, str]
    at_ms: int


@dataclass(frozen=True, slots=True)
class GameStarted(_Named):
    """A game dealt from `seed` (``sha256-fy/1``) or, without a seed, from explicit `packs`."""

    game_index: int
    seed: str | None
    packs: Packs | None
    commitment: str | None
    first_player: int
    first_player_reason: str
    at_ms: int
    algorithm: str = "sha256-fy/1"


@dataclass(frozen=True, slots=True)
class CardMoved(_Named):
    seat: int
    src: str
    dst: str
    card: Card
    fault: str | None
    at_ms: int


@dataclass(frozen=True, slots=True)
class HandCardTurned(_Named):
    """A hand card turned face up into X. With three hands (docs/spec/rules.md §10) `hand` is
    the hand it came from when that is not H<seat>, and `named` says the player named the hand
    (``turn I0``) rather than leaving it to the default order H, I, J."""

    seat: int
    card: Card
    fault: str | None
    at_ms: int
    hand: str | None = None
    named: bool = False

    @property
    def hand_name(self) -> str:
        """The hand the card came from."""
        return self.hand if self.hand is not None else f"H{self.seat}"

    @property
    def action(self) -> Turn:
        """The turn as the player made it: naming its hand only if he named it."""
        return Turn(self.seat, self.hand_name) if self.named else Turn(self.seat)


@dataclass(frozen=True, slots=True)
class WasteTurnedOver(_Named):
    """The whole waste became the new hand (its bottom card is now the hand's top)."""

    seat: int
    count: int
    at_ms: int


@dataclass(frozen=True, slots=True)
class CardDiscarded(_Named):
    """X went to the waste. `auto` says why when the player did not discard it himself:
    ``"hand card lock"``, ``"time"`` or ``"crapette"``."""

    seat: int
    card: Card
    fault: str | None
    at_ms: int
    auto: DiscardAuto | None = None


@dataclass(frozen=True, slots=True)
class Passed(_Named):
    seat: int
    fault: str | None
    at_ms: int


@dataclass(frozen=True, slots=True)
class TurnEnded(_Named):
    """`reason` (`TurnEndReason`): ``discard``, ``pass``, ``hand card lock``, ``time``,
    ``crapette`` or ``wrong calls`` (a turn lost as the penalty for three wrong calls)."""

    seat: int
    next_seat: int
    reason: TurnEndReason
    at_ms: int


@dataclass(frozen=True, slots=True)
class CrapetteCalled(_Named):
    """A call by `caller` on the action whose first event has stream index `target_index`."""

    caller: int
    offender: int
    target_index: int
    verdict: str  # "right" | "wrong"
    rule: str | None  # the priority rule broken (right) or None
    at_ms: int
    penalty: bool = False  # a wrong call that costs the caller his next turn
    # The compulsory move the caller named (`R1-F2`), as he wrote it, whether or not it was played:
    # a record must say what the player did (streams written before it was kept have None).
    named: str | None = None

    @property
    def seat(self) -> int:
        return self.caller


@dataclass(frozen=True, slots=True)
class ActionVoided(_Named):
    """The undo of one earlier event of the called action (most recent first).

    `voided` names that event's type; the card goes back from `dst` to `src` (for a waste turned
    over, `count` cards go back from the hand to the waste; for a turn end, the turn comes back).
    """

    seat: int
    voided: str
    src: str | None
    dst: str | None
    card: Card | None
    count: int
    at_ms: int


@dataclass(frozen=True, slots=True)
class CompulsoryMovePlayed(_Named):
    """The move the offender skipped, played for him after a right call."""

    seat: int
    src: str
    dst: str
    card: Card
    at_ms: int


@dataclass(frozen=True, slots=True)
class DrawOffered(_Named):
    seat: int
    at_ms: int


@dataclass(frozen=True, slots=True)
class DrawAccepted(_Named):
    seat: int
    at_ms: int


@dataclass(frozen=True, slots=True)
class TimeExpired(_Named):
    seat: int
    at_ms: int


@dataclass(frozen=True, slots=True)
class GameWon(_Named):
    winner: int
    reason: WinReason
    score: tuple[int, int]
    at_ms: int


@dataclass(frozen=True, slots=True)
class GameStalemated(_Named):
    """`reason` (`StalemateReason`): ``agreed``, ``400 turns without a foundation build`` or
    ``both players went through their hands without progress`` (both streaks)."""

    penalties: tuple[int, int]
    score: tuple[int, int]
    reason: StalemateReason
    at_ms: int


@dataclass(frozen=True, slots=True)
class GameResigned(_Named):
    seat: int
    winner: int
    score: tuple[int, int]
    at_ms: int


@dataclass(frozen=True, slots=True)
class MatchWon(_Named):
    winner: int
    totals: tuple[int, int]
    at_ms: int
    # At a rotation table (docs/spec/rules.md §10) the person whose session total reached the
    # target; `winner` is his seat then. Left out of the payload when unset (every other match).
    player: str | None = None
    # The seat that abandoned the match (docs/spec/rules.md §8): the other seat wins at once,
    # whatever the totals. Left out of the payload when unset (a match played to its target).
    abandoned_by: int | None = None
    # The abandon was claimed (issue 39): the winner claimed the win while `abandoned_by` was
    # away past the grace period, or a tournament's director recorded him as a no-show. Left
    # out of the payload when false.
    claimed: bool = False


# -- rotation tables (docs/spec/rules.md §10): the people of a session beyond the seated pair --


@dataclass(frozen=True, slots=True)
class PlayerQueued(_Named):
    """A person joined the table: he waits at the back of the queue."""

    name: str
    at_ms: int


@dataclass(frozen=True, slots=True)
class PlayerLeftQueue(_Named):
    """A waiting person left the table for good (his total stays in the session)."""

    name: str
    at_ms: int


@dataclass(frozen=True, slots=True)
class SeatsRotated(_Named):
    """After game `game_index` was won, `left` gave up seat `seat` to `entered`, the first of
    the queue, and went to its back: `players` sit in seats 0 and 1 from now on, `queue` waits."""

    game_index: int
    left: str
    entered: str
    seat: int
    players: tuple[str, str]
    queue: tuple[str, ...]
    at_ms: int


Event = (
    MatchStarted
    | GameStarted
    | CardMoved
    | HandCardTurned
    | WasteTurnedOver
    | CardDiscarded
    | Passed
    | TurnEnded
    | CrapetteCalled
    | ActionVoided
    | CompulsoryMovePlayed
    | DrawOffered
    | DrawAccepted
    | TimeExpired
    | GameWon
    | GameStalemated
    | GameResigned
    | MatchWon
    | PlayerQueued
    | PlayerLeftQueue
    | SeatsRotated
)

# Every event class by its name (the stored event's type), read from the `Event` union above.
EVENT_TYPES: dict[str, type[Any]] = {cls.__name__: cls for cls in get_args(Event)}

_PAIRS = ("players", "score", "totals", "penalties", "queue")


def _dump(name: str, value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, Ruleset):
        return value.to_json()
    if name == "packs":
        return [[card.code for card in pack] for pack in value]
    if isinstance(value, tuple):
        return list(value)
    return value


def _load(name: str, value: Any) -> Any:
    if value is None:
        return None
    if name == "card":
        return Card.parse(value)
    if name == "ruleset":
        return Ruleset.from_json(value)
    if name == "packs":
        return tuple(
            tuple(Card.parse(code, owner=seat) for code in pack) for seat, pack in enumerate(value)
        )
    if name in _PAIRS:
        return tuple(value)
    return value


# Fields added for the three hands of docs/spec/rules.md §10, left out of a payload while they
# hold their default: the events of every other game are stored as they were before.
_UNSET: dict[str, object] = {"hand": None, "named": False}


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}  # each event class's fields, in order


def event_to_payload(event: Event) -> tuple[str, dict[str, Any]]:
    """(type name, JSON-able dict) of an event."""
    names = _FIELD_NAMES.get(type(event))
    if names is None:
        names = _FIELD_NAMES[type(event)] = tuple(f.name for f in fields(event))
    payload = {name: _dump(name, getattr(event, name)) for name in names}
    if isinstance(event, HandCardTurned):
        for name, unset in _UNSET.items():
            if payload[name] == unset:
                del payload[name]
    if type(event) is MatchWon:
        # A two-seat match's MatchWon stays as it always was; so does one played to its target.
        if event.player is None:
            del payload["player"]
        if event.abandoned_by is None:
            del payload["abandoned_by"]
        if not event.claimed:
            del payload["claimed"]
    return type(event).__name__, payload


def _closed_fields() -> dict[type, dict[str, frozenset[str | None]]]:
    """Each event class's fields typed as a closed set (a `Literal`, perhaps `| None`), with
    their members (None among them for an optional one)."""
    closed: dict[type, dict[str, frozenset[str | None]]] = {}
    for cls in EVENT_TYPES.values():
        for name, hint in get_type_hints(cls).items():
            parts = (hint,) if get_origin(hint) is Literal else get_args(hint)
            literals = [part for part in parts if get_origin(part) is Literal]
            if literals:
                members: set[str | None] = {m for part in literals for m in get_args(part)}
                if type(None) in parts:
                    members.add(None)
                closed.setdefault(cls, {})[name] = frozenset(members)
    return closed


# TurnEnded, GameWon and GameStalemated: `reason`; CardDiscarded: `auto`.
CLOSED_FIELDS: dict[type, dict[str, frozenset[str | None]]] = _closed_fields()


def event_from_payload(kind: str, payload: dict[str, Any]) -> Event:
    """The event back from `event_to_payload`'s output; a reason outside its closed set (an
    event no engine wrote) is refused."""
    cls = EVENT_TYPES.get(kind)
    if cls is None:
        raise NotationError(f"unknown event type {quote(kind)}")
    for name, members in CLOSED_FIELDS.get(cls, {}).items():
        value = payload.get(name)
        if value not in members:
            known = ", ".join(sorted(str(m) for m in members))
            raise NotationError(f"unknown {kind} {name} {quote(value)} (one of: {known})")
    try:
        event: Event = cls(**{k: _load(k, v) for k, v in payload.items()})
    except TypeError as exc:
        raise NotationError(f"bad {kind} payload: {exc}") from None
    return event
