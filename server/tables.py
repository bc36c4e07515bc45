"""The lobby side of a match: who sits where, seat tokens (hashed), bots, forfeits, rematch links.

These facts live in their own stream `table-<match_id>` so that the match stream holds only the
domain's events. A `Table` is the fold of that stream; it survives a restart like the rest."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, replace

from server.payloads import JsonObject

TABLE_OPENED = "TableOpened"
SEAT_TAKEN = "SeatTaken"
BOT_SEATED = "BotSeated"  # data: seat, bot, takeover (True when it replaces an absent human)
SEAT_RETURNED = "SeatReturned"  # the human owner came back: takeover bot and forfeit lifted
SEAT_FORFEITED = "SeatForfeited"  # claimed as resigned, or abandoned: every game is resigned
REMATCH_OFFERED = "RematchOffered"  # data: seat (who offers), at_ms
REMATCH_DECLINED = "RematchDeclined"  # data: seat (who declines), at_ms
REMATCH_OPENED = "RematchOpened"  # data: match_id of the new table (the offer was accepted)
TABLE_EXPIRED = "TableExpired"  # an open table nobody joined in time: out of the lobby, kept
NEXT_GAME_READY = "NextGameReady"  # data: seat, game_index (the game just over), at_ms

# How long a seated bot waits after the last event before it acts (a table's "bot pace"): long
# enough for a person to follow each action and to call a fault before the bot's next one.
BOT_PACES: dict[str, float] = {"relaxed": 2.0, "normal": 1.0, "quick": 0.4}
DEFAULT_BOT_PACE = "normal"


# The two streams of a match in the store: the domain's events, and the lobby's facts.
MATCH_PREFIX = "match-"
TABLE_PREFIX = "table-"


def table_stream(match_id: str) -> str:
    return f"{TABLE_PREFIX}{match_id}"


def match_stream(match_id: str) -> str:
    return f"{MATCH_PREFIX}{match_id}"


def new_match_id() -> str:
    return "m-" + secrets.token_hex(5)


def new_seat_token() -> str:
    return secrets.token_urlsafe(24)


def hash_token(token: str) -> str:
    # surrogatepass: a client may send a lone surrogate ("\ud800" in JSON); it hashes to what
    # no seat holds instead of failing. Every other string hashes as plain UTF-8.
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Seat:
    name: str | None = None
    token_hash: str | None = None
    bot: str | None = None  # the bot now playing this seat
    takeover: bool = False  # the bot stands in for an absent human who may come back
    forfeited: bool = False
    abandoned: bool = False  # forfeited by its owner himself: coming back does not lift it

    @property
    def free(self) -> bool:
        return self.name is None and self.bot is None


@dataclass(frozen=True)
class RematchAnswer:
    """A seat's rematch offer (or refusal of one), and when."""

    seat: int
    at_ms: int


@dataclass(frozen=True)
class Table:
    match_id: str
    ruleset: JsonObject
    preset: str
    created_at_ms: int
    seats: tuple[Seat, Seat] = (Seat(), Seat())
    rematch_of: str | None = None
    rematch: str | None = None
    rematch_offer: RematchAnswer | None = None  # the offer waiting for the other seat's answer
    rematch_declined: RematchAnswer | None = None  # the last offer's refusal
    imported: bool = False  # a match played elsewhere: kept for replay, never continued here
    expired: bool = False  # nobody joined in time: no seat can be taken any more
    bot_pace: str = DEFAULT_BOT_PACE
    # The seats that pressed "Next game" after game `ready_game` ended.
    ready_game: int = -1
    ready: frozenset[int] = frozenset()
    version: int = 0

    @property
    def full(self) -> bool:
        return not any(seat.free for seat in self.seats)

    def seat_of(self, token: str | None) -> int | None:
        """The seat a token owns, compared in constant time."""
        if not token:
            return None
        digest = hash_token(token)
        for index, seat in enumerate(self.seats):
            if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, digest):
                return index
        return None

    def bot_seats(self) -> dict[int, str]:
        return {i: s.bot for i, s in enumerate(self.seats) if s.bot is not None}


def _with_seat(table: Table, index: int, seat: Seat) -> Table:
    seats = list(table.seats)
    seats[index] = seat
    return replace(table, seats=(seats[0], seats[1]))


def evolve_table(table: Table | None, event_type: str, data: JsonObject) -> Table:
    if event_type == TABLE_OPENED:
        return Table(
            match_id=data["match_id"],
            ruleset=data["ruleset"],
            preset=data["preset"],
            created_at_ms=data["at_ms"],
            rematch_of=data.get("rematch_of"),
            imported=bool(data.get("imported", False)),
            bot_pace=str(data.get("bot_pace", DEFAULT_BOT_PACE)),
            version=1,
        )
    if table is None:
        raise ValueError(f"table stream starts with {event_type}, not {TABLE_OPENED}")
    table = replace(table, version=table.version + 1)
    if event_type == SEAT_TAKEN:
        return _with_seat(
            table, data["seat"], Seat(name=data["name"], token_hash=data["token_hash"])
        )
    if event_type == BOT_SEATED:
        seat = table.seats[data["seat"]]
        if data.get("takeover"):
            return _with_seat(table, data["seat"], replace(seat, bot=data["bot"], takeover=True))
        return _with_seat(table, data["seat"], Seat(name=data["name"], bot=data["bot"]))
    if event_type == SEAT_RETURNED:
        seat = table.seats[data["seat"]]
        return _with_seat(
            table, data["seat"], replace(seat, bot=None, takeover=False, forfeited=False)
        )
    if event_type == SEAT_FORFEITED:
        seat = table.seats[data["seat"]]
        abandoned = bool(data.get("abandoned", False))
        return _with_seat(table, data["seat"], replace(seat, forfeited=True, abandoned=abandoned))
    if event_type == NEXT_GAME_READY:
        game = int(data["game_index"])
        ready = table.ready if game == table.ready_game else frozenset()
        return replace(table, ready_game=game, ready=ready | {int(data["seat"])})
    if event_type == REMATCH_OFFERED:
        offer = RematchAnswer(seat=data["seat"], at_ms=data["at_ms"])
        return replace(table, rematch_offer=offer, rematch_declined=None)
    if event_type == REMATCH_DECLINED:
        refusal = RematchAnswer(seat=data["seat"], at_ms=data["at_ms"])
        return replace(table, rematch_offer=None, rematch_declined=refusal)
    if event_type == REMATCH_OPENED:
        return replace(table, rematch=data["match_id"], rematch_offer=None)
    if event_type == TABLE_EXPIRED:
        return replace(table, expired=True)
    return table  # an event type of a later server version: ignored, not fatal
