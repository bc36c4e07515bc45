"""`crapette bench abuse`: what one visitor's heavy requests cost everyone else (issue 38).

See `abuse` below for what it measures. This module also makes the records it uploads
(`finished_record`), which the integration tests use too."""

from __future__ import annotations

import json
import random
from typing import Any

import domain
from domain.commands import Act, StartGame, StartMatch
from domain.engine import legal_actions, play
from eventstore import open_store


def finished_record(wins: int = 1, seed: int = 3, match_id: str = "club-abuse") -> dict[str, Any]:
    """A finished match of random legal play (`wins` games to win), as its JSON record: every
    action real, so a server verifies each one (a few thousand actions per game)."""
    from bench.history import _NOT_PLAYED, _append_match, _table
    from records.export import export_match

    rng = random.Random(seed)
    ruleset = domain.Ruleset.from_json({"preset": "classic", "match": f"wins:{wins}"})
    made, state = play(None, StartMatch(match_id, ruleset, ("Ann", "Bob"), 0))
    while not state.finished:
        game = state.game
        if game is None or game.over:
            new, state = play(state, StartGame(f"{rng.getrandbits(256):064x}", None, 0))
        else:
            choices = [
                a for a in legal_actions(state, game.to_move) if not isinstance(a, _NOT_PLAYED)
            ]
            new, state = play(state, Act(rng.choice(choices), 0))
        made += new
    store = open_store("memory://")
    try:
        _table(store, match_id, ruleset, 0)
        _append_match(store, match_id, made)
        record: dict[str, Any] = export_match(store, match_id)
    finally:
        store.close()
    return record


def record_bytes(record: dict[str, Any], size: int | None = None) -> bytes:
    """The record as an upload's body: JSON, padded with trailing blanks to `size` bytes (as
    large as the limits allow, for the same work)."""
    body = json.dumps(record, indent=1).encode()
    if size is not None and len(body) < size:
        body += b" " * (size - len(body))
    return body
