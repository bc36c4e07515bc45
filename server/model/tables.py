"""The lobby side of a match: who sits where, seat tokens (hashed), bots, forfeits, rematch links.

These facts live in their own stream `table-<match_id>` so that the match stream holds only the
domain's events. A `Table` is the fold of that stream; it survives a restart like the rest."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, replace

from server.wire.payloads import JsonObject

TABLE_OPENED = "TableOpened"
SEAT_TAKEN = "SeatTaken"
BOT_SEATED = "BotSeated"  # data: seat, bot, takeover (True when it replaces an absent human)
SEAT_RETURNED = "SeatReturned"  # the human owner came back: takeover bot and forfeit lifted
SEAT_FORFEITED = "SeatForfeited"  # claimed as resigned (or abandoned, before `Abandon`)
REMATCH_OFFERED = "RematchOffered"  # data: seat (who offers), at_ms
REMATCH_DECLINED = "RematchDeclined"  # data: seat (who declines), at_ms
REMATCH_OPENED = "RematchOpened"  # data: match_id of the new table (the offer was accepted)
TABLE_EXPIRED = "TableExpired"  # an open table nobody joined in time: out of the lobby, kept
NEXT_GAME_READY = "NextGameReady"  # data: seat, game_index (the game just over), at_ms
# A person joins a rotation table's queue (docs/spec/rules.md §10): data: place (his index among
# the people), name, token_hash (None for a bot), bot, at_ms.
PERSON_QUEUED = "PersonQueued"

# How long a seated bot waits after the last event before it acts (a table's "bot pace"): long
# enough for a person to follow each action and to call a fault before the bot's next one.
BOT_PACES: dict[str, float] = {"relaxed": 2.0, "normal": 1.0, "quick": 0.4}
DEFAULT_BOT_PACE = "normal"
# The longest time limit per move a table may have (an hour), however the limit is given.
MAX_MOVE_TIME_S = 3600
# How long a rematch offer waits for the other player's answer (`RematchOffered`).
REMATCH_OFFER_MS = 60_000


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
    """The lobby facts of a table. `people` are the people at it, by place: the two first
    seated, then (at a rotation table, docs/spec/rules.md §10) those who joined the queue;
    `seated` the places in seats 0 and 1 now (always (0, 1) without rotation), learned from the
    match's `SeatsRotated` events (`with_pair`). `seats` is the two seated people."""

    match_id: str
    ruleset: JsonObject
    preset: str
    created_at_ms: int
    people: tuple[Seat, ...] = (Seat(), Seat())
    seated: tuple[int, int] = (0, 1)
    rematch_of: str | None = None
    rematch: str | None = None
    rematch_offer: RematchAnswer | None = None  # the offer waiting for the other seat's answer
    rematch_declined: RematchAnswer | None = None  # the last offer's refusal
    imported: bool = False  # a match played elsewhere: kept for replay, never continued here
    expired: bool = False  # nobody joined in time: no seat can be taken any more
    bot_pace: str = DEFAULT_BOT_PACE
    # Played on from a finished match's position (server/services/practice.py): {"match_id",
    # "version"} of the source; a practice table counts in no statistics. None: a table like any
    # other.
    practice: JsonObject | None = None
    # The tournament whose desk opened this table (`TableOpened`'s `tournament`, written since
    # issue 38); None for every other table, and for a tournament's table opened before then.
    tournament: str | None = None
    # The seats that pressed "Next game" after game `ready_game` ended.
    ready_game: int = -1
    ready: frozenset[int] = frozenset()
    version: int = 0

    @property
    def seats(self) -> tuple[Seat, Seat]:
        return self.people[self.seated[0]], self.people[self.seated[1]]

    @property
    def full(self) -> bool:
        return not any(seat.free for seat in self.seats)

    @property
    def rotation(self) -> str:
        """The table's `rotation` option (docs/spec/rules.md §10): "off" for two people."""
        return str(self.ruleset.get("rotation", "off"))

    def place_of(self, token: str | None) -> int | None:
        """The place of the person a token is, compared in constant time."""
        if not token:
            return None
        digest = hash_token(token)
        for index, person in enumerate(self.people):
            if person.token_hash is not None and hmac.compare_digest(person.token_hash, digest):
                return index
        return None

    def seat_of(self, token: str | None) -> int | None:
        """The seat a token owns now (None: no such person, or he waits for a seat)."""
        return self.seat_of_place(self.place_of(token))

    def seat_of_place(self, place: int | None) -> int | None:
        return self.seated.index(place) if place in self.seated else None

    def place_named(self, name: str) -> int | None:
        return next((i for i, person in enumerate(self.people) if person.name == name), None)

    def with_pair(self, players: tuple[str, str]) -> Table:
        """The table once `players` sit in seats 0 and 1 (a rotation table's seat change). A
        name the table does not know (a stream written without its person) leaves it as it is."""
        first, second = self.place_named(players[0]), self.place_named(players[1])
        if first is None or second is None:
            return self
        return replace(self, seated=(first, second))

    def bot_seats(self) -> dict[int, str]:
        """The seats a bot plays now: {seat: bot name}."""
        return {i: s.bot for i, s in enumerate(self.seats) if s.bot is not None}


def opened_by(table: Table, tournament_id: str) -> bool:
    """Whether tournament `tournament_id`'s desk opened `table` (docs/tournaments.md § The
    desk's own tables): its opening names the tournament. A table opened before openings named
    one (no `tournament`) is the desk's if no import wrote it and it is no practice table or
    rematch: a desk is the only opener that chooses a table's id (an import of a tournament's
    table id is refused, records/streams.py); never a table an import wrote, whatever it says."""
    if table.imported:
        return False
    if table.tournament is not None:
        return table.tournament == tournament_id
    return table.practice is None and table.rematch_of is None


def _text_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _place(data: JsonObject) -> int:
    """The place a seat event is about: written since rotation tables exist; before them a seat
    was always its first taker's place."""
    place = data.get("place")
    return int(data["seat"] if place is None else place)


def _with_seat(table: Table, index: int, seat: Seat) -> Table:
    people = list(table.people)
    people[index] = seat
    return replace(table, people=tuple(people))


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
            practice=data.get("practice"),
            tournament=_text_or_none(data.get("tournament")),
            version=1,
        )
    if table is None:
        raise ValueError(f"table stream starts with {event_type}, not {TABLE_OPENED}")
    table = replace(table, version=table.version + 1)
    if event_type == SEAT_TAKEN:
        return _with_seat(
            table, _place(data), Seat(name=data["name"], token_hash=data["token_hash"])
        )
    if event_type == PERSON_QUEUED:
        person = Seat(name=data["name"], token_hash=data.get("token_hash"), bot=data.get("bot"))
        return replace(table, people=(*table.people, person))
    if event_type == BOT_SEATED:
        place = _place(data)
        seat = table.people[place]
        if data.get("takeover"):
            return _with_seat(table, place, replace(seat, bot=data["bot"], takeover=True))
        return _with_seat(table, place, Seat(name=data["name"], bot=data["bot"]))
    if event_type == SEAT_RETURNED:
        place = _place(data)
        seat = table.people[place]
        return _with_seat(table, place, replace(seat, bot=None, takeover=False, forfeited=False))
    if event_type == SEAT_FORFEITED:
        place = _place(data)
        seat = table.people[place]
        abandoned = bool(data.get("abandoned", False))
        return _with_seat(table, place, replace(seat, forfeited=True, abandoned=abandoned))
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
