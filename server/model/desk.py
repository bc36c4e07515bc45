"""The tournament desk: the server's facts about a tournament that are no part of its rules, in
the stream `desk-<id>` beside `tournament-<id>` (as `table-<id>` is beside `match-<id>`).

- `DeskOpened {director_hash, bot_pace, at_ms}`: the hash of the director's token (the token
  itself is given once, to whoever created the tournament) and the bots' pace at its tables;
- `NameClaimed {name, token_hash, at_ms}`: a person said "this is me" for a registered name and
  was given a seat token, which seats him at each of his tables (as a rematch reuses one);
- `ClaimReleased {name, at_ms}`: the director freed a name (a player lost his phone): the next
  claim gives a new token, and his open table is seated with it;
- `FinishRequested {at_ms}`: the director asked to end after the round in play: when its last
  table ends, the tournament finishes instead of pairing the next round.

Tokens are kept as hashes only, as the tables keep them (`server.model.tables.hash_token`)."""

from __future__ import annotations

import hmac
from dataclasses import dataclass, field, replace

from server.model.tables import DEFAULT_BOT_PACE, hash_token

DESK_OPENED = "DeskOpened"
NAME_CLAIMED = "NameClaimed"
CLAIM_RELEASED = "ClaimReleased"
FINISH_REQUESTED = "FinishRequested"


@dataclass(frozen=True)
class Desk:
    director_hash: str = ""
    bot_pace: str = DEFAULT_BOT_PACE
    claims: dict[str, str] = field(default_factory=dict)  # name -> seat token hash
    finish_requested: bool = False
    version: int = 0

    def is_director(self, token: str | None) -> bool:
        if not token or not self.director_hash:
            return False
        return hmac.compare_digest(self.director_hash, hash_token(token))

    def name_of(self, token: str | None) -> str | None:
        """The registered name a player's token was given for."""
        if not token:
            return None
        digest = hash_token(token)
        for name, held in self.claims.items():
            if hmac.compare_digest(held, digest):
                return name
        return None


def evolve_desk(desk: Desk, event_type: str, data: dict[str, object]) -> Desk:
    desk = replace(desk, version=desk.version + 1)
    if event_type == DESK_OPENED:
        pace = str(data.get("bot_pace") or DEFAULT_BOT_PACE)
        return replace(desk, director_hash=str(data["director_hash"]), bot_pace=pace)
    if event_type == NAME_CLAIMED:
        claims = {**desk.claims, str(data["name"]): str(data["token_hash"])}
        return replace(desk, claims=claims)
    if event_type == CLAIM_RELEASED:
        claims = {k: v for k, v in desk.claims.items() if k != data["name"]}
        return replace(desk, claims=claims)
    if event_type == FINISH_REQUESTED:
        return replace(desk, finish_requested=True)
    return desk  # a fact of a later server version: ignored, not fatal
