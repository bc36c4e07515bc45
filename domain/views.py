"""What one seat (or a spectator) may see: `view` for the table, `redact` for single events.

While a game runs, face-down cards (a reserve below its top, the hands) are sent as ``null``,
the seed stays hidden behind its commitment, and no event says whether an action was a fault
(spotting that is the opponent's job: docs/spec/rules.md §7). Once the game is over, everything is
shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from domain.actions import Action
from domain.engine import legal_actions
from domain.events import (
    CardDiscarded,
    CardMoved,
    CompulsoryMovePlayed,
    CrapetteCalled,
    Event,
    GameStarted,
    HandCardTurned,
    Passed,
    event_to_payload,
)
from domain.piles import ALL_PILES, HAND_SET, INDEX, RESERVE, SECOND_RESERVE, layout_piles
from domain.ruleset import Ruleset
from domain.state import GameState, MatchState


@dataclass(frozen=True, slots=True)
class View:
    """A seat's (or a spectator's) picture of the match; `to_json()` is what a client receives."""

    match_id: str
    game_index: int | None
    version: int
    viewer: int | None
    ruleset: dict[str, Any]
    preset: str
    players: tuple[str, str]
    totals: tuple[int, int]
    wins: tuple[int, int]
    game_scores: tuple[tuple[int, int], ...]
    match_over: bool
    match_winner: int | None
    to_move: int | None
    turn_number: int
    over: bool
    result: dict[str, Any] | None
    commitment: str | None
    seed: str | None
    first_player: int | None
    first_player_reason: str | None
    piles: dict[str, list[str | None]]
    last_action: dict[str, Any] | None
    call_window: dict[str, Any]
    clock: dict[str, Any]
    draw_offer: int | None
    legal: tuple[Action, ...] = field(default=())
    emptied: tuple[str, ...] = ()  # houses the player to move emptied this turn (refill_at_once)
    session: dict[str, Any] | None = None  # a rotation table's people (Session.to_json)

    def to_json(self) -> dict[str, Any]:
        return _to_json({name: getattr(self, name) for name in _FIELDS})


_FIELDS = tuple(View.__dataclass_fields__)


def _to_json(f: dict[str, Any]) -> dict[str, Any]:
    """A view's JSON from its fields (`View.to_json`, and `public_view_json` without a View)."""
    data = {
        "match_id": f["match_id"],
        "game_index": f["game_index"],
        "version": f["version"],
        "viewer": f["viewer"],
        "ruleset": f["ruleset"],
        "preset": f["preset"],
        "players": list(f["players"]),
        "totals": list(f["totals"]),
        "wins": list(f["wins"]),
        "game_scores": [list(s) for s in f["game_scores"]],
        "match_over": f["match_over"],
        "match_winner": f["match_winner"],
        "to_move": f["to_move"],
        "turn_number": f["turn_number"],
        "over": f["over"],
        "result": f["result"],
        "commitment": f["commitment"],
        "seed": f["seed"],
        "first_player": f["first_player"],
        "first_player_reason": f["first_player_reason"],
        "piles": f["piles"],
        "last_action": f["last_action"],
        "call_window": f["call_window"],
        "clock": f["clock"],
        "draw_offer": f["draw_offer"],
        "emptied": list(f.get("emptied", ())),
        "legal": legal_json(f.get("legal", ())),
    }
    if f.get("session") is not None:
        data["session"] = f["session"]
    return data


def legal_json(legal: tuple[Action, ...]) -> list[dict[str, Any]]:
    return [dict(a.to_json(), text=a.notation()) for a in legal]


def view(state: MatchState, viewer: int | None) -> View:
    """What `viewer` (seat 0, seat 1, or None for a spectator) may see of the match now."""
    return seat_view(public_view(state), state, viewer)


def seat_view(
    public: View, state: MatchState, viewer: int | None, *, with_legal: bool = True
) -> View:
    """`public` (the `public_view` of `state`) as `viewer` sees it: a seat's view is the public
    one plus its seat and that seat's legal actions; a spectator's is the public one. Whoever
    shows one position to several viewers builds its public view once. `with_legal=False`
    leaves the legal actions out (a position already past when it is shown)."""
    if viewer is None:
        return public
    return replace(public, viewer=viewer, legal=_legal(state, viewer, with_legal))


def seat_view_json(
    public: dict[str, Any], state: MatchState, viewer: int | None, *, with_legal: bool = True
) -> dict[str, Any]:
    """`seat_view(...).to_json()` from the public view's JSON (`public_view_json`), without
    building a View per seat: what the server sends each room after every event. The seat's
    JSON shares the public one's nested values; neither may be changed in place."""
    if viewer is None:
        return public
    legal = _legal(state, viewer, with_legal)
    return {**public, "viewer": viewer, "legal": legal_json(legal) if legal else []}


def _legal(state: MatchState, viewer: int, with_legal: bool) -> tuple[Action, ...]:
    if with_legal and state.game is not None and not state.finished:
        return tuple(legal_actions(state, viewer))
    return ()


def public_view(state: MatchState) -> View:
    """What everyone may see of the match now: a spectator's view (no seat, no legal actions).
    Nothing in it depends on who looks: face-down cards are hidden from the seats as well."""
    return View(**_public_fields(state))


def public_view_json(state: MatchState) -> dict[str, Any]:
    """`public_view(state).to_json()`, without the View."""
    return _to_json(_public_fields(state))


# A ruleset's JSON, made once per ruleset (id → (ruleset, JSON)): every view carries it.
_RULESET_JSON: dict[int, tuple[Ruleset, dict[str, Any]]] = {}


def _ruleset_json(ruleset: Ruleset) -> dict[str, Any]:
    known = _RULESET_JSON.get(id(ruleset))
    if known is None or known[0] is not ruleset:
        if len(_RULESET_JSON) > 256:
            _RULESET_JSON.clear()
        known = _RULESET_JSON[id(ruleset)] = (ruleset, ruleset.to_json())
    return dict(known[1])


def _public_fields(state: MatchState) -> dict[str, Any]:
    game = state.game
    ruleset = state.ruleset
    common: dict[str, Any] = {
        "match_id": state.match_id,
        "version": state.version,
        "viewer": None,
        "ruleset": _ruleset_json(ruleset),
        "preset": ruleset.name,
        "players": state.players,
        "totals": state.totals,
        "wins": state.wins,
        "game_scores": state.game_scores,
        "match_over": state.finished,
        "match_winner": state.winner,
        "session": state.session.to_json() if state.session is not None else None,
    }
    if game is None:
        return dict(
            game_index=None,
            to_move=None,
            turn_number=0,
            over=False,
            result=None,
            commitment=None,
            seed=None,
            first_player=None,
            first_player_reason=None,
            piles={},
            last_action=None,
            call_window={"open": False, "offender": None, "action": None},
            clock={"limit_s": ruleset.move_time_limit_s},
            draw_offer=None,
            **common,
        )
    window = game.window
    open_window = window is not None and not window.called and not game.over
    return dict(
        game_index=game.game_index,
        to_move=game.to_move,
        turn_number=game.turn_number,
        over=game.over,
        result=game.result.to_json() if game.result is not None else None,
        commitment=game.commitment,
        seed=game.seed if game.over else None,
        first_player=game.first_player,
        first_player_reason=game.first_player_reason,
        piles=visible_piles(game),
        last_action=last_action(game),
        call_window={
            "open": open_window,
            "offender": window.offender if window is not None and open_window else None,
            "action": window.action.notation() if window is not None and open_window else None,
        },
        clock={
            "limit_s": ruleset.move_time_limit_s,
            "turn_started_at_ms": game.turn_started_at_ms,
            "move_started_at_ms": game.move_started_at_ms,
        },
        draw_offer=game.draw_offer,
        emptied=tuple(ALL_PILES[h] for h in sorted(game.emptied)),
        **common,
    )


def visible_piles(game: GameState) -> dict[str, list[str | None]]:
    """Every pile bottom to top; face-down cards as None while the game runs."""
    shown: dict[str, list[str | None]] = {}
    hidden = not game.over
    ruleset = game.ruleset
    names = layout_piles(
        ruleset.houses_per_player, ruleset.reserves_per_player, ruleset.hands_per_player
    )
    for name in names:
        i = INDEX[name]
        cards = game.p[i]
        if hidden and i in HAND_SET:
            shown[name] = [None] * len(cards)
        elif hidden and (i in RESERVE or i in SECOND_RESERVE) and cards:
            shown[name] = [None] * (len(cards) - 1) + [cards[-1].text]
        else:
            shown[name] = [card.text for card in cards]
    return shown


def last_action(game: GameState) -> dict[str, Any] | None:
    """The most recent move, turn, discard, pass or call, as action JSON with its card."""
    e = game.last_event
    if isinstance(e, (CardMoved, CompulsoryMovePlayed)):
        data: dict[str, Any] = {"do": "move", "seat": e.seat, "from": e.src, "to": e.dst}
        data["card"] = str(e.card)
        if isinstance(e, CompulsoryMovePlayed):
            data["compulsory"] = True
        return data
    if isinstance(e, HandCardTurned):
        turned = {"do": "turn", "seat": e.seat, "card": str(e.card)}
        if game.ruleset.hands_per_player == 3:
            turned["hand"] = e.hand_name  # which of the three hands it came from (§10)
        return turned
    if isinstance(e, CardDiscarded):
        return {"do": "discard", "seat": e.seat, "card": str(e.card), "auto": e.auto}
    if isinstance(e, Passed):
        return {"do": "pass", "seat": e.seat}
    if isinstance(e, CrapetteCalled):
        return {"do": "call", "seat": e.caller, "verdict": e.verdict, "rule": e.rule}
    return None


def redact(event: Event, viewer: int | None, state: MatchState | None = None) -> dict[str, Any]:
    """The event as `viewer` may see it: ``{"type": …, **payload}``.

    Without `state` (or while the event's game runs) a `GameStarted` loses its seed and packs,
    and play events lose their `fault`. Pass the current `state` to reveal them after the game.
    """
    kind, payload = event_to_payload(event)
    revealed = _revealed(event, state)
    if isinstance(event, GameStarted) and not revealed:
        payload["seed"] = None
        payload["packs"] = None
    if "fault" in payload and not revealed:
        payload["fault"] = None
    return {"type": kind, **payload}


def _revealed(event: Event, state: MatchState | None) -> bool:
    if state is None or state.game is None:
        return False
    if state.finished:
        return True
    game = state.game
    index = event.game_index if isinstance(event, GameStarted) else game.game_index
    return index < game.game_index or game.over
