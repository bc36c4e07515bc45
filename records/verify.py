"""Verify a record: recompute every decision from its deal and actions, trusting none of them.

The seed is checked against its commitment and the packs against the seed; then each action is given
to the engine (`domain.decide_and_fold`) at the time the record states, and what the engine decides
is described in record words (`decisions.describe`) and compared key by key with what the record
says. The first difference is raised as `RecordMismatchError` naming the game and action. The events
the engine produced are returned, so that an importer stores exactly what it verified.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import domain
from domain import Act, Card, RulesError, StartGame, StartMatch
from domain.deal import commitment, packs_from_seed
from records.decisions import DECISION_KEYS, describe
from records.errors import (
    RecordFormatError,
    RecordIncompleteError,
    RecordMismatchError,
    RecordRefusedError,
)
from records.export import match_result_json, seat_change_json
from records.schema import load_record
from records.text import action_notation

_ACTION_KEYS = ("do", "seat", "from", "to", "move", "hand", "claimed")
_RESULT_KEYS = ("outcome", "winner", "score", "penalties", "reason")


@dataclass
class Verified:
    """A record that holds: the engine's events (one list per command) and a summary line."""

    record: dict[str, Any]
    batches: list[list[domain.Event]] = field(default_factory=list)
    actions: int = 0
    summary: str = ""
    # Told (actions checked, actions in the record) every PROGRESS_EVERY actions and at the end.
    progress: Callable[[int, int], None] | None = None
    total: int = 0


# How often a long check says how far it has come (an upload's progress, docs/protocol.md).
PROGRESS_EVERY = 200


def verify_record(record: object, progress: Callable[[int, int], None] | None = None) -> Verified:
    """Recompute the whole record; raise RecordFormatError / RecordMismatchError / ...
    `progress(done, total)`: told how many of the record's actions are checked so far."""
    loaded = load_record(record)
    total = sum(len(game["actions"]) for game in loaded["games"])
    verified = Verified(loaded, progress=progress, total=total)
    state = _start_match(loaded, verified)
    games = loaded["games"]
    queue = _Queue(loaded, verified)
    state = queue.replay(state, None, 0)
    for game in games:
        state = _verify_game(state, game, verified, queue)
    queue.all_played()
    _check_match_result(state, loaded)
    verified.summary = _summary(loaded, verified)
    if progress is not None:
        progress(total, total)
    return verified


class _Queue:
    """A rotation record's comings and goings (`queue`), played into the match where the record
    puts them: after `after` actions of game `game` (docs/spec/records.md §3)."""

    def __init__(self, record: dict[str, Any], verified: Verified) -> None:
        self.entries: list[dict[str, Any]] = list(record.get("queue") or [])
        self.verified = verified
        self.played = 0

    def replay(self, state: domain.MatchState, game: int | None, after: int) -> domain.MatchState:
        while self.played < len(self.entries):
            entry = self.entries[self.played]
            if (entry["game"], entry["after"]) != (game, after):
                break
            command: domain.Command
            if entry["do"] == "join":
                command = domain.JoinQueue(entry["name"], entry["at_ms"])
            else:
                command = domain.LeaveQueue(entry["name"], entry["at_ms"])
            number = game + 1 if game is not None else 1
            try:
                events, state = domain.decide_and_fold(state, command)
            except RulesError as exc:
                notation = f"{entry['do']} {entry['name']}"
                reason = f"{exc.rule}: {exc.message}"
                raise RecordRefusedError(number, after, notation, reason) from None
            self.verified.batches.append(events)
            self.played += 1
        return state

    def all_played(self) -> None:
        if self.played < len(self.entries):
            entry = self.entries[self.played]
            raise RecordFormatError(
                f"queue[{self.played}] ({entry['do']} {entry['name']}) is placed after action "
                f"{entry['after']} of game {entry['game']}, which the record does not hold"
            )


def ruleset_of(record: dict[str, Any]) -> domain.Ruleset:
    preset = record.get("preset")
    base = preset if preset in domain.PRESETS else "classic"
    try:
        ruleset = domain.Ruleset.from_json({**record["ruleset"], "preset": base})
    except domain.RulesetError as exc:
        raise RecordFormatError(f"the record's ruleset: {exc}") from None
    return ruleset


def _start_match(record: dict[str, Any], verified: Verified) -> domain.MatchState:
    command = StartMatch(
        record["match_id"],
        ruleset_of(record),
        (record["players"][0], record["players"][1]),
        record["started_at_ms"],
    )
    events, state = domain.decide_and_fold(None, command)
    verified.batches.append(events)
    return state


def _deal_command(game: dict[str, Any], number: int) -> StartGame:
    deal = game["deal"]
    seed, packs = deal.get("seed"), deal.get("packs")
    at_ms = game["started_at_ms"]
    if seed is not None:
        engine_commitment = commitment(seed)
        stated = deal.get("commitment")
        if stated is not None and stated != engine_commitment:
            raise RecordMismatchError(
                number, None, "the seed does not match its commitment", stated, engine_commitment
            )
        if packs is not None:
            engine_packs = [[card.code for card in pack] for pack in packs_from_seed(seed)]
            for seat in (0, 1):
                if packs[seat] != engine_packs[seat]:
                    at = next(
                        i
                        for i, (a, b) in enumerate(
                            zip(packs[seat], engine_packs[seat], strict=True)
                        )
                        if a != b
                    )
                    raise RecordMismatchError(
                        number,
                        None,
                        f"pack {seat} does not come from the seed (card {at + 1})",
                        packs[seat][at],
                        engine_packs[seat][at],
                    )
        return StartGame(seed, None, at_ms)
    if packs is not None:
        cards = tuple(
            [Card.parse(code, owner=seat) for code in pack] for seat, pack in enumerate(packs)
        )
        return StartGame(None, (cards[0], cards[1]), at_ms)
    raise RecordIncompleteError(
        f"game {number} was exported while it was being played: its deal is still secret, "
        f"so its {len(game['actions'])} actions cannot be verified"
    )


def _verify_game(
    state: domain.MatchState, game: dict[str, Any], verified: Verified, queue: _Queue
) -> domain.MatchState:
    number = game["index"] + 1
    if "players" in game and game["players"] != list(state.players):
        raise RecordMismatchError(
            number, None, "players", " - ".join(game["players"]), " - ".join(state.players)
        )
    command = _deal_command(game, number)
    try:
        events, state = domain.decide_and_fold(state, command)
    except RulesError as exc:
        reason = f"refused: {exc.message}"
        raise RecordMismatchError(number, None, "a new game", "dealt", reason) from None
    started = events[0]
    assert isinstance(started, domain.GameStarted)
    verified.batches.append(events)
    if started.first_player != game["first_player"]:
        raise RecordMismatchError(
            number, None, "first player", game["first_player"], started.first_player
        )
    if started.first_player_reason != game["first_player_reason"]:
        raise RecordMismatchError(
            number,
            None,
            "first player's reason",
            repr(game["first_player_reason"]),
            repr(started.first_player_reason),
        )
    number_of: dict[int, int] = {}
    engine_result: dict[str, Any] | None = None
    actions = game["actions"]
    state = queue.replay(state, game["index"], 0)
    for n, stated in enumerate(actions, start=1):
        if engine_result is not None and stated.get("do") != "abandon":
            # After a game's end only an abandon may follow (docs/spec/records.md §2), and the
            # engine refuses anything after that: the match is over.
            raise RecordRefusedError(number, n, action_notation(stated), "the game is over")
        state, result = _verify_action(state, game, n, stated, number_of, verified)
        engine_result = result or engine_result
        if verified.progress is not None and n % PROGRESS_EVERY == 0:
            verified.progress(verified.actions, verified.total)
        state = queue.replay(state, game["index"], n)
    last = len(actions) or None
    _check_seat_change(state, game, last)
    stated_result = game.get("result")
    if stated_result is None and engine_result is not None:
        raise RecordMismatchError(
            number, last, "result", "none (game running)", _show(engine_result)
        )
    if stated_result is not None and engine_result is None:
        raise RecordMismatchError(number, last, "result", _show(stated_result), "the game goes on")
    if stated_result is not None and engine_result is not None:
        for key in _RESULT_KEYS:
            if stated_result.get(key) != engine_result.get(key):
                raise RecordMismatchError(
                    number, last, key, _show(stated_result.get(key)), _show(engine_result.get(key))
                )
    return state


def _verify_action(
    state: domain.MatchState,
    game: dict[str, Any],
    n: int,
    stated: dict[str, Any],
    number_of: dict[int, int],
    verified: Verified,
) -> tuple[domain.MatchState, dict[str, Any] | None]:
    number = game["index"] + 1
    notation = action_notation(stated)
    try:
        action = domain.action_from_json({k: stated[k] for k in _ACTION_KEYS if k in stated})
    except domain.NotationError as exc:
        raise RecordFormatError(f"game {number}, action {n}: {exc}") from None
    at_ms = game["started_at_ms"] + stated["ms"]
    steps = _single_moves(state, action, stated, number, n, notation)
    if steps is not None:
        assert isinstance(action, domain.Move)
        after, decisions, game_result = _verify_shortcut(
            state, action, steps, at_ms, (number, n, notation), number_of, verified
        )
        _compare(stated, decisions, number, n, notation)
        verified.actions += 1
        return after, game_result
    index = state.version
    try:
        events, after = domain.decide_and_fold(state, Act(action, at_ms))
    except RulesError as exc:
        raise RecordRefusedError(number, n, notation, f"{exc.rule}: {exc.message}") from None
    number_of[index] = n
    decisions, game_result, _ = describe(action, events, lambda i: number_of.get(i, 0))
    _compare(stated, decisions, number, n, notation)
    verified.batches.append(events)
    verified.actions += 1
    return after, game_result


def _single_moves(
    state: domain.MatchState,
    action: domain.Action,
    stated: dict[str, Any],
    number: int,
    n: int,
    notation: str,
) -> list[domain.Move] | None:
    """The single moves of a multi-card shortcut written as one action (`T0-T3 3S`: its card is
    the bottom card of the moved sequence), in the order the live engine plays them
    (docs/spec/rules.md §11); None for any other action. Elsewhere a move's card is a decision,
    compared once the engine has played the move."""
    card = stated.get("card")
    game = state.game
    if not isinstance(action, domain.Move) or not isinstance(card, str) or game is None:
        return None
    try:
        named = domain.Move(action.seat, action.src, action.dst, Card.parse(card.split("/")[0]))
        steps = domain.single_moves(game, named)
    except domain.NotationError as exc:
        raise RecordFormatError(f"game {number}, action {n}: {exc}") from None
    except RulesError as exc:
        raise RecordRefusedError(number, n, notation, f"{exc.rule}: {exc.message}") from None
    return steps if len(steps) > 1 else None


def _verify_shortcut(
    state: domain.MatchState,
    shortcut: domain.Move,
    steps: list[domain.Move],
    at_ms: int,
    where: tuple[int, int, str],
    number_of: dict[int, int],
    verified: Verified,
) -> tuple[domain.MatchState, dict[str, Any], dict[str, Any] | None]:
    """Play and judge each single move of a shortcut. Its decisions, in record words: `card`, the
    card its own `from`-`to` step moved (the bottom card of the sequence, with its owner), and
    `fault`/`rule` when a step broke priority (the rule of the last step that did: a call
    reaches only the last step)."""
    decisions: dict[str, Any] = {}
    game_result: dict[str, Any] | None = None
    number, n, notation = where
    for step in steps:
        index = state.version
        try:
            events, state = domain.decide_and_fold(state, Act(step, at_ms))
        except RulesError as exc:
            reason = f"{exc.rule}: {exc.message} (in its single move {step.notation()})"
            raise RecordRefusedError(number, n, notation, reason) from None
        number_of[index] = n  # a call on the last step names the shortcut's number
        said, game_result, _ = describe(step, events, lambda i: number_of.get(i, 0))
        if (step.src, step.dst) == (shortcut.src, shortcut.dst):
            decisions["card"] = said.get("card")
        if said.get("fault"):
            decisions["fault"], decisions["rule"] = True, said.get("rule")
        verified.batches.append(events)
    return state, decisions, game_result


def _compare(
    stated: dict[str, Any], decisions: dict[str, Any], number: int, n: int, notation: str
) -> None:
    """Raise at the first decision the record states otherwise than the engine."""
    for key in DECISION_KEYS:
        said, engine = stated.get(key), decisions.get(key)
        if key == "card" and _same_card(said, engine):
            continue
        if key in ("fault", "penalty") and not said and not engine:
            continue  # `"fault": false` says the same as no fault at all
        if said != engine:
            raise RecordMismatchError(number, n, f"{notation}: {key}", _show(said), _show(engine))


def _same_card(said: object, engine: object) -> bool:
    """A card written without its owner (`AS`) matches that card of either pack."""
    if isinstance(said, str) and isinstance(engine, str) and "/" not in said:
        return engine.split("/")[0] == said
    return said == engine


def _check_seat_change(state: domain.MatchState, game: dict[str, Any], last: int | None) -> None:
    """A rotation record's `seat_change` after this game is the engine's (None: nobody moved)."""
    session = state.session
    if session is None or "seat_change" not in game:
        return
    change = session.last
    engine = seat_change_json(change) if change and change.game_index == game["index"] else None
    if game["seat_change"] != engine:
        raise RecordMismatchError(
            game["index"] + 1, last, "seat change", _show(game["seat_change"]), _show(engine)
        )


def _check_match_result(state: domain.MatchState, record: dict[str, Any]) -> None:
    stated = record["result"]
    engine = match_result_json(state)
    games = record["games"]
    last_game = len(games)
    last_action = len(games[-1]["actions"]) if games else None
    keys = ["totals", "winner", "finished"] + [k for k in ("player", "people") if k in stated]
    for key in keys:
        if stated.get(key) != engine[key]:
            raise RecordMismatchError(
                max(last_game, 1),
                last_action,
                f"match {key}",
                _show(stated.get(key)),
                _show(engine[key]),
            )


def _show(value: object) -> str:
    """A decision as a reader would write it: `none`, `34 0`, `R1-F2 2S/1`, ..."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list) and all(isinstance(v, int) for v in value):
        return " ".join(map(str, value)) if value else "nothing"
    if isinstance(value, list):
        return "; ".join(_show(v) for v in value) if value else "nothing"
    if isinstance(value, dict):
        if "from" in value:
            return f"{value['from']}-{value['to']} {value['card']}"
        if "next" in value:
            return f"turn to seat {value['next']} ({value['reason']})"
        if "card" in value:
            return f"{value['card']} ({value['reason']})"
        return ", ".join(f"{k} {_show(v)}" for k, v in value.items() if v is not None)
    return str(value)


def _summary(record: dict[str, Any], verified: Verified) -> str:
    players = record["players"]
    totals = record["result"]["totals"]
    games = record["games"]
    seeds = sum(1 for g in games if g["deal"].get("seed"))
    winner = record["result"].get("winner")  # optional: an unfinished match may leave it out
    if record["games"] and "players" in record["games"][-1]:  # rotation: the last pair's seats
        players = record["games"][-1]["players"]
    outcome = (
        f"{record['result'].get('player') or players[winner]} wins the match"
        if record["result"]["finished"] and winner is not None
        else "match not finished"
    )
    score = f"{players[0]} {totals[0]} - {totals[1]} {players[1]}"
    if "people" in record["result"]:  # a rotation session: everyone's total
        score = ", ".join(f"{p['name']} {p['total']}" for p in record["result"]["people"])
    return (
        f"ok: {record['match_id']} ({record.get('preset') or 'custom'}), "
        f"{score}, {outcome}; "
        f"{len(games)} game(s), {verified.actions} actions recomputed, "
        f"{seeds} seed(s) match their commitments"
    )
