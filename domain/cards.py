"""Playing cards that remember their owner's pack.

Cards are interned: ``Card(7, "H", 1) is Card.parse("7H/1")``. That keeps equality and hashing
at identity speed, which the engine's position keys rely on.
"""

from __future__ import annotations

from typing import Any, ClassVar

from domain.errors import NotationError, quote

RANKS = "A23456789TJQK"
SUITS = "SHDC"
RED_SUITS = frozenset("HD")


class Card:
    """A card: rank 1 (Ace) .. 13 (King), suit S/H/D/C, owner seat 0 or 1. Immutable."""

    __slots__ = ("rank", "suit", "owner", "code", "red", "text", "fkey", "fwant", "hkey", "hwant")
    _interned: ClassVar[dict[tuple[int, str, int], Card]] = {}

    rank: int
    suit: str
    owner: int
    code: str
    red: bool
    text: str  # "7H/1": rank, suit and owner, as str() gives it
    # Integer keys for fast move generation: a card fits a foundation whose top's `fwant` is its
    # `fkey` (same suit, one higher), a house whose top's `hwant` is its `hkey` (one lower, other
    # colour); 0 when nothing may follow.
    fkey: int
    fwant: int
    hkey: int
    hwant: int

    def __new__(cls, rank: int, suit: str, owner: int = 0) -> Card:
        key = (rank, suit, owner)
        card = cls._interned.get(key)
        if card is not None:
            return card
        if not isinstance(rank, int) or not 1 <= rank <= 13:
            raise NotationError(f"a card's rank is 1..13, not {quote(rank)}")
        if suit not in ("S", "H", "D", "C"):
            raise NotationError(f"a card's suit is S, H, D or C, not {quote(suit)}")
        if owner not in (0, 1):
            raise NotationError(f"a card's owner is seat 0 or 1, not {quote(owner)}")
        card = object.__new__(cls)
        setter = object.__setattr__
        setter(card, "rank", rank)
        setter(card, "suit", suit)
        setter(card, "owner", owner)
        setter(card, "code", RANKS[rank - 1] + suit)
        setter(card, "red", suit in RED_SUITS)
        setter(card, "text", f"{RANKS[rank - 1]}{suit}/{owner}")
        suit_base = 16 * (SUITS.index(suit) + 1)
        setter(card, "fkey", suit_base + rank)
        setter(card, "fwant", suit_base + rank + 1 if rank < 13 else 0)
        red = suit in RED_SUITS
        setter(card, "hkey", 2 * rank + red)
        setter(card, "hwant", 2 * (rank - 1) + (not red) if rank > 1 else 0)
        cls._interned[key] = card
        return card

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("cards are immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        return (Card, (self.rank, self.suit, self.owner))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Card:
        return self

    @classmethod
    def parse(cls, text: str, owner: int | None = None) -> Card:
        """Read ``"7H"``, ``"7H/1"`` or ``"10H"``; `owner` applies when the text names none."""
        if not isinstance(text, str):
            raise NotationError(f"a card is written like 7H or 7H/1, not {quote(text)}")
        body = text.strip().upper()
        seat = owner
        if "/" in body:
            body, _, tail = body.partition("/")
            if tail not in ("0", "1"):
                raise NotationError(f"a card's owner is /0 or /1 in {quote(text)}")
            seat = int(tail)
        if body.startswith("10"):
            body = "T" + body[2:]
        if len(body) != 2 or body[0] not in RANKS or body[1] not in SUITS:
            raise NotationError(
                f"{quote(text)} is not a card (write rank A23456789TJQK + suit SHDC)"
            )
        return cls(RANKS.index(body[0]) + 1, body[1], 0 if seat is None else seat)

    @property
    def black(self) -> bool:
        return not self.red

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Card.parse({self.text!r})"

    def __lt__(self, other: Card) -> bool:
        return (self.owner, SUITS.index(self.suit), self.rank) < (
            other.owner,
            SUITS.index(other.suit),
            other.rank,
        )


def fresh_pack(owner: int) -> list[Card]:
    """The unshuffled pack of docs/spec/records.md §1: AS 2S … KS AH … KC."""
    return [Card(rank, suit, owner) for suit in SUITS for rank in range(1, 14)]
