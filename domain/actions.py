"""Player actions: frozen records with the notation of docs/spec/records.md §2 (text and JSON)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from domain.cards import Card
from domain.errors import NotationError, quote
from domain.piles import pile_index


@dataclass(frozen=True, slots=True)
class Move:
    """One card from `src` to `dst`; `card`, when given, must be the source's top (rank, suit)."""

    seat: int
    src: str
    dst: str
    card: Card | None = None

    def notation(self) -> str:
        base = f"{self.src}-{self.dst}"
        return f"{base} {self.card.code}" if self.card is not None else base

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"do": "move", "seat": self.seat, "from": self.src, "to": self.dst}
        if self.card is not None:
            data["card"] = str(self.card)
        return data

    def __repr__(self) -> str:
        return f"<Move {self.seat}: {self.notation()}>"


@dataclass(frozen=True, slots=True)
class Turn:
    """Turn the top hand card face up into X (recycling the waste first if the hand is empty).

    `hand` names the hand to turn from (``turn I0``, three hands: docs/spec/rules.md §10); None
    takes the first hand with cards in the order H, I, J."""

    seat: int
    hand: str | None = None

    def notation(self) -> str:
        return "turn" if self.hand is None else f"turn {self.hand}"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"do": "turn", "seat": self.seat}
        if self.hand is not None:
            data["hand"] = self.hand
        return data


@dataclass(frozen=True, slots=True)
class Discard:
    """Put the turned-up hand card on the own waste; ends the turn."""

    seat: int

    def notation(self) -> str:
        return "discard"

    def to_json(self) -> dict[str, Any]:
        return {"do": "discard", "seat": self.seat}


@dataclass(frozen=True, slots=True)
class Pass:
    """End the turn with hand, X and waste all empty."""

    seat: int

    def notation(self) -> str:
        return "pass"

    def to_json(self) -> dict[str, Any]:
        return {"do": "pass", "seat": self.seat}


@dataclass(frozen=True, slots=True)
class Call:
    """A "Crapette!" call on the opponent's last action, maybe naming the compulsory move."""

    seat: int
    move: Move | None = None

    def notation(self) -> str:
        return "crapette" if self.move is None else f"crapette {self.move.notation()}"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"do": "call", "seat": self.seat}
        if self.move is not None:
            data["move"] = self.move.notation()
        return data


@dataclass(frozen=True, slots=True)
class Resign:
    seat: int

    def notation(self) -> str:
        return "resign"

    def to_json(self) -> dict[str, Any]:
        return {"do": "resign", "seat": self.seat}


@dataclass(frozen=True, slots=True)
class Abandon:
    """Give up the whole match (docs/spec/rules.md §8): the game in play, if any, is resigned
    and the opponent wins the match at once; no further game is dealt. Not at a rotation table."""

    seat: int
    # Abandoned for him (docs/spec/rules.md §8): his opponent claimed the win while he was away
    # past the grace period, or a tournament's director recorded him as a no-show. Only the
    # server gives it: a person's own `abandon` never has it.
    claimed: bool = False

    def notation(self) -> str:
        return "abandon claimed" if self.claimed else "abandon"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"do": "abandon", "seat": self.seat}
        if self.claimed:
            data["claimed"] = True
        return data


@dataclass(frozen=True, slots=True)
class OfferDraw:
    """Offer to agree on a stalemate."""

    seat: int

    def notation(self) -> str:
        return "offer-draw"

    def to_json(self) -> dict[str, Any]:
        return {"do": "offer-draw", "seat": self.seat}


@dataclass(frozen=True, slots=True)
class AcceptDraw:
    """Accept the opponent's pending stalemate offer."""

    seat: int

    def notation(self) -> str:
        return "accept-draw"

    def to_json(self) -> dict[str, Any]:
        return {"do": "accept-draw", "seat": self.seat}


@dataclass(frozen=True, slots=True)
class TimeOut:
    """The clock says `seat` (the player to move) ran out of time; sent by the server."""

    seat: int

    def notation(self) -> str:
        return "time-out"

    def to_json(self) -> dict[str, Any]:
        return {"do": "time-out", "seat": self.seat}


_SHARED_MOVES: dict[tuple[int, str, str], Move] = {}


def shared_move(seat: int, src: str, dst: str) -> Move:
    """The one `Move(seat, src, dst)` without a card (actions are immutable, so one will do)."""
    key = (seat, src, dst)
    move = _SHARED_MOVES.get(key)
    if move is None:
        move = _SHARED_MOVES[key] = Move(seat, src, dst)
    return move


Action = Move | Turn | Discard | Pass | Call | Resign | Abandon | OfferDraw | AcceptDraw | TimeOut
PLAY_ACTIONS = (Move, Turn, Discard, Pass)  # the actions of the player to move

_SIMPLE: dict[
    str, type[Turn | Discard | Pass | Resign | Abandon | OfferDraw | AcceptDraw | TimeOut]
] = {
    "turn": Turn,
    "discard": Discard,
    "pass": Pass,
    "resign": Resign,
    "abandon": Abandon,
    "offer-draw": OfferDraw,
    "accept-draw": AcceptDraw,
    "time-out": TimeOut,
}


# Every `do` of the JSON form (docs/spec/records.md §2), the server's time-out included.
ACTION_NAMES: tuple[str, ...] = ("move", "call", *_SIMPLE)


def _check_seat(seat: object) -> int:
    if seat not in (0, 1) or isinstance(seat, bool):
        raise NotationError(f"a seat is 0 or 1, not {quote(seat)}")
    return 0 if seat == 0 else 1


_HAND_NAMES = frozenset(f"{kind}{seat}" for kind in "HIJ" for seat in (0, 1))


def parse_hand(name: object) -> str:
    """A hand's name for a named turn: ``H0 H1 I0 I1 J0 J1``."""
    if not isinstance(name, str) or name.upper() not in _HAND_NAMES:
        raise NotationError(f"{quote(name)} is not a hand (a turn names H0 H1 I0 I1 J0 or J1)")
    return name.upper()


def parse_move(text: str, seat: int) -> Move:
    """``"T3-F0"`` or ``"T3-F0 AS"``."""
    parts = text.split()
    if not parts or len(parts) > 2 or parts[0].count("-") != 1:
        raise NotationError(f"{quote(text)} is not a move (write it like T3-F0 or T3-F0 AS)")
    src, dst = (p.upper() for p in parts[0].split("-"))
    pile_index(src)
    pile_index(dst)
    card = Card.parse(parts[1]) if len(parts) == 2 else None
    return Move(_check_seat(seat), src, dst, card)


def parse_action(text: str, seat: int) -> Action:
    """Read an action in the text notation of docs/spec/records.md §2 for `seat`."""
    if not isinstance(text, str) or not text.strip():
        raise NotationError("an action is text such as T3-F0, turn, discard or crapette")
    words = text.strip().split(maxsplit=1)
    head = words[0].lower()
    seat = _check_seat(seat)
    if head in ("crapette", "call", "stop!", "stop", "tunj", "seis"):
        return Call(seat, parse_move(words[1], seat) if len(words) == 2 else None)
    if head == "turn" and len(words) == 2:
        return Turn(seat, parse_hand(words[1].strip()))
    if head == "abandon" and len(words) == 2 and words[1].strip().lower() == "claimed":
        return Abandon(seat, claimed=True)
    if head in _SIMPLE:
        if len(words) > 1:
            raise NotationError(f"{quote(text)}: {head} takes nothing after it")
        return _SIMPLE[head](seat)
    return parse_move(text, seat)


def action_from_json(data: dict[str, Any]) -> Action:
    """Read the JSON form of docs/spec/records.md §2 (``{"do": "move", "seat": 0, "from": …}``)."""
    if not isinstance(data, dict):
        raise NotationError("an action is a JSON object with a 'do' key")
    do = data.get("do")
    seat = _check_seat(data.get("seat"))
    if do == "move":
        src, dst, card = data.get("from"), data.get("to"), data.get("card")
        if not isinstance(src, str) or not isinstance(dst, str):
            raise NotationError("a move needs 'from' and 'to' piles")
        pile_index(src)
        pile_index(dst)
        return Move(seat, src.upper(), dst.upper(), Card.parse(card) if card is not None else None)
    if do == "call":
        named = data.get("move")
        if named is not None and not isinstance(named, str):
            raise NotationError("a call's 'move' is text such as R1-F2")
        return Call(seat, parse_move(named, seat) if named else None)
    if do == "turn" and data.get("hand") is not None:
        return Turn(seat, parse_hand(data["hand"]))
    if do == "abandon" and data.get("claimed") is not None:
        if data["claimed"] is not True and data["claimed"] is not False:
            raise NotationError("an abandon's 'claimed' is true or false")
        return Abandon(seat, claimed=data["claimed"])
    if isinstance(do, str) and do in _SIMPLE:
        return _SIMPLE[do](seat)
    raise NotationError(f"unknown action {quote(do)}")
