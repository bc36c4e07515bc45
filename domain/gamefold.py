"""Folding one event into a `GameState` (the game half of `evolve`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain import deal
from domain.actions import Action, Discard, Pass, Turn, shared_move
from domain.cards import Card
from domain.derived import Derived
from domain.events import (
    ActionVoided,
    CardDiscarded,
    CardMoved,
    CompulsoryMovePlayed,
    CrapetteCalled,
    DrawAccepted,
    DrawOffered,
    Event,
    GameResigned,
    GameStalemated,
    GameStarted,
    GameWon,
    HandCardTurned,
    Passed,
    TimeExpired,
    TurnEnded,
    WasteTurnedOver,
)
from domain.moves import houses_hash, move_card, waste_turned_over
from domain.piles import (
    ALL_PILES,
    FOUNDATION_SET,
    HAND,
    HOUSE_SET,
    INDEX,
    RESERVE,
    SECOND_RESERVE,
    SHOWN,
    WASTE,
)
from domain.ruleset import Ruleset
from domain.state import CallWindow, GameResult, GameState, Piles, loose_count

# Actions are immutable, so the call window of a turn, discard or pass shares one per seat.
_TURN = (Turn(0), Turn(1))
_DISCARD = (Discard(0), Discard(1))
_PASS = (Pass(0), Pass(1))


def new_game(ruleset: Ruleset, event: GameStarted) -> GameState:
    if event.packs is not None:
        packs = event.packs
    else:
        assert event.seed is not None
        pack0, pack1 = deal.packs_from_seed(event.seed)
        packs = (tuple(pack0), tuple(pack1))
    dealt = deal.layout(
        packs,
        ruleset.reserve_size,
        ruleset.houses_per_player,
        ruleset.reserves_per_player,
        ruleset.hands_per_player,
    )
    p: Piles = tuple(tuple(dealt.get(name, ())) for name in ALL_PILES)
    return fresh_game(
        ruleset,
        p,
        event.first_player,
        game_index=event.game_index,
        seed=event.seed,
        packs=packs,
        commitment=event.commitment,
        first_player_reason=event.first_player_reason,
        at_ms=event.at_ms,
    )


def fresh_game(
    ruleset: Ruleset,
    p: Piles,
    first: int,
    *,
    game_index: int,
    seed: str | None,
    packs: tuple[tuple[Card, ...], tuple[Card, ...]],
    commitment: str | None,
    first_player_reason: str,
    at_ms: int,
) -> GameState:
    """A game at the start of its first turn: the one place that lists every GameState field
    (a dealt game and a position set up from text both start here)."""
    return GameState(
        ruleset=ruleset,
        game_index=game_index,
        seed=seed,
        packs=packs,
        commitment=commitment,
        first_player=first,
        first_player_reason=first_player_reason,
        p=p,
        to_move=first,
        turn_number=1,
        over=False,
        result=None,
        window=None,
        turn_productive=False,
        turn_founded=False,
        turn_start_cards=loose_count(p, first),
        streaks=(0, 0),
        targets=(0, 0),
        quiet_turns=0,
        seen=frozenset({houses_hash(p)}),
        hhash=houses_hash(p),
        emptied=frozenset(),
        wrong_calls=(0, 0),
        skip_next=(False, False),
        draw_offer=None,
        started_at_ms=at_ms,
        turn_started_at_ms=at_ms,
        move_started_at_ms=at_ms,
        last_event=None,
        derived=Derived(),
    )


def _base(game: GameState) -> GameState:
    """The state a right call restores, without its own window (no chain of old states)."""
    return game if game.window is None else game._evolved(window=None)


def _open(
    game: GameState,
    seat: int,
    index: int,
    action: Action,
    fault: str | None,
    event: Event,
    keep_base: bool = False,
) -> CallWindow | None:
    """The call window on a new action. Only a fault can be voided, so only then (or when the
    fault may still show up, as in a turn that starts by recycling the waste) is the state
    before the action kept."""
    if game.ruleset.enforcement != "call":
        return None
    base = _base(game) if fault is not None or keep_base else None
    return CallWindow(seat, index, action, fault, (event,), base)


def _extend(
    window: CallWindow | None, event: Event, turn_over: bool = False, fault: str | None = None
) -> CallWindow | None:
    """The window of an action with one more of its events (and maybe the fault it revealed)."""
    if window is None:
        return None
    return CallWindow(
        window.offender,
        window.first_index,
        window.action,
        fault or window.fault,
        (*window.events, event),
        window.base,
        turn_over or window.turn_over,
        window.called,
        window.self_called,
    )


def _after_time_out(window: CallWindow | None, seat: int, event: Event) -> CallWindow | None:
    """A time-out ends the turn as a discard would: the offender's last action stays callable
    until the caller's own first action, and a right call voids the time-out's events too. The
    caller's own time-out ends his turn, and with it his chance to call: a call after it would
    void his timed-out turn as well."""
    if window is None or window.offender != seat:
        return None
    return _extend(window, event, turn_over=True)


def _replace_piles(
    p: Piles, i: int, cards: tuple[Card, ...], j: int, more: tuple[Card, ...]
) -> Piles:
    """`p` with pile `i` replaced by `cards` and pile `j` by `more`."""
    piles = list(p)
    piles[i] = cards
    piles[j] = more
    return tuple(piles)


def evolve_game(game: GameState, event: Event, index: int) -> GameState:
    """The game after `event`, which is the match stream's event number `index`: the evolve
    function of the event's kind (`_EVOLVE`)."""
    return _EVOLVE[type(event)](game, event, index)


def _card_moved(game: GameState, event: CardMoved, index: int) -> GameState:
    """A card moved by the player to move (the commonest event); it opens the call window."""
    window = None
    if game.ruleset.enforcement == "call":
        move = shared_move(event.seat, event.src, event.dst)
        window = _open(game, event.seat, index, move, event.fault, event)
    return _moved(game, event, window, event.at_ms)


def _compulsory_move_played(game: GameState, event: CompulsoryMovePlayed, index: int) -> GameState:
    """The move a right call plays for the offender: no window, and the move clock goes on."""
    return _moved(game, event, None, game.move_started_at_ms)


def _moved(
    game: GameState,
    event: CardMoved | CompulsoryMovePlayed,
    window: CallWindow | None,
    at_ms: int,
) -> GameState:
    """The game after one card moved: copied through `GameState._moved`, with the destination
    indexes handed on when no foundation (or house) changed."""
    seat = event.seat
    src, dst = INDEX[event.src], INDEX[event.dst]
    p, hhash = move_card(game.p, game.hhash, src, dst)
    # Only a house-to-house move can lead back to an earlier layout of this turn.
    src_house, dst_house = src in HOUSE_SET, dst in HOUSE_SET
    seen = game.seen | {hhash} if src_house and dst_house else frozenset({hhash})
    founded = dst in FOUNDATION_SET
    # A productive turn (docs/spec/rules.md §8, §11): a card out of the reserve or X, or onto a
    # foundation from anywhere but the own waste (a playable waste never makes one productive).
    productive = (
        src == RESERVE[seat]
        or src == SHOWN[seat]
        or src == SECOND_RESERVE[seat]
        or (founded and src != WASTE[seat])
    )
    emptied = game.emptied | {src} if src_house and not p[src] else game.emptied
    if founded or src in FOUNDATION_SET:
        derived = Derived()
    else:
        derived = game.derived.handed_on(houses=not (src_house or dst_house))
    return game._moved(
        p,
        seen,
        hhash,
        emptied,
        game.turn_productive or productive,
        game.turn_founded or founded,
        window,
        at_ms,
        event,
        derived,
    )


def _hand_card_turned(game: GameState, event: HandCardTurned, index: int) -> GameState:
    """A hand card turned up into X. After a waste turned over for it, it belongs to the same
    action (one call window); otherwise it opens its own window."""
    seat = event.seat
    p = game.p
    hand = HAND[seat] if event.hand is None else INDEX[event.hand]  # I or J: three hands (§10)
    p = _replace_piles(p, hand, p[hand][:-1], SHOWN[seat], (p[hand][-1],))
    window = game.window
    continues = (
        window is not None
        and window.first_index + len(window.events) == index
        and isinstance(window.events[-1], WasteTurnedOver)
    )
    action = Turn(seat, event.hand_name) if event.named else _TURN[seat]
    if continues:
        window = _extend(window, event, fault=event.fault)
        if window is not None and event.named:
            window = window._replace(action=action)
    else:
        window = _open(game, seat, index, action, event.fault, event)
    return _hand_moved(game, p, window, event.at_ms, event)


def _card_discarded(game: GameState, event: CardDiscarded, index: int) -> GameState:
    """X put on the waste: by the player (its own window), or automatically as the end of the
    action that caused it (hand card lock, time-out, right call)."""
    seat = event.seat
    p = game.p
    p = _replace_piles(p, SHOWN[seat], (), WASTE[seat], p[WASTE[seat]] + p[SHOWN[seat]])
    if event.auto is None:
        window = _open(game, seat, index, _DISCARD[seat], event.fault, event)
    elif event.auto == "hand card lock":
        window = _extend(game.window, event)
    elif event.auto == "time":
        window = _after_time_out(game.window, seat, event)
    else:
        window = None
    # A discard does not restart the move clock.
    return _hand_moved(game, p, window, game.move_started_at_ms, event)


def _hand_moved(
    game: GameState,
    p: Piles,
    window: CallWindow | None,
    at_ms: int,
    event: HandCardTurned | CardDiscarded,
) -> GameState:
    """A hand card turned or discarded: the houses and foundations are unchanged."""
    hhash, seen = game.hhash, game.seen
    # A turn or discard starts the repetition guard afresh from the current layout.
    if len(seen) != 1 or hhash not in seen:
        seen = frozenset({hhash})
    derived = game.derived.handed_on(houses=True)
    return game._moved(
        p,
        seen,
        hhash,
        game.emptied,
        game.turn_productive,
        game.turn_founded,
        window,
        at_ms,
        event,
        derived,
    )


def _waste_turned_over(game: GameState, event: WasteTurnedOver, index: int) -> GameState:
    """The waste becomes the hand (the first half of a turn action: it opens the window)."""
    seat = event.seat
    p = waste_turned_over(game.p, seat)
    window = _open(game, seat, index, _TURN[seat], None, event, keep_base=True)
    return game._evolved(
        p=p, seen=frozenset({game.hhash}), window=window, derived=_same_table(game)
    )


def _passed(game: GameState, event: Passed, index: int) -> GameState:
    window = _open(game, event.seat, index, _PASS[event.seat], event.fault, event)
    return game._evolved(window=window, last_event=event, derived=_same_table(game))


def _draw_offered(game: GameState, event: DrawOffered, index: int) -> GameState:
    return game._evolved(draw_offer=event.seat, derived=_same_table(game))


def _draw_accepted(game: GameState, event: DrawAccepted, index: int) -> GameState:
    return game._evolved(draw_offer=None, derived=_same_table(game))


def _time_expired(game: GameState, event: TimeExpired, index: int) -> GameState:
    window = _after_time_out(game.window, event.seat, event)
    return game._evolved(window=window, derived=_same_table(game))


def _game_won(game: GameState, event: GameWon, index: int) -> GameState:
    result = GameResult("win", event.winner, event.reason, event.score)
    return game._evolved(over=True, result=result, window=None)


def _game_stalemated(game: GameState, event: GameStalemated, index: int) -> GameState:
    s0, s1 = event.score
    winner = 0 if s0 > s1 else 1 if s1 > s0 else None
    result = GameResult("stalemate", winner, event.reason, event.score, event.penalties)
    return game._evolved(over=True, result=result, window=None)


def _game_resigned(game: GameState, event: GameResigned, index: int) -> GameState:
    reason = f"seat {event.seat} resigned"
    result = GameResult("resign", event.winner, reason, event.score)
    return game._evolved(over=True, result=result, window=None)


def _same_table(game: GameState) -> Derived:
    """Derived data for a state whose houses and foundations are `game`'s."""
    return game.derived.handed_on(houses=True)


def _turn_ended(game: GameState, event: TurnEnded, index: int) -> GameState:
    """A new turn; a stalemate offer lapses once the seat that could accept it ends a turn."""
    seat, nxt = event.seat, event.next_seat
    streaks, targets = list(game.streaks), list(game.targets)
    if game.turn_productive:
        streaks, targets = [0, 0], [0, 0]
    else:
        if streaks[seat] == 0:
            targets[seat] = max(1, game.turn_start_cards)
        streaks[seat] += 1
    quiet = 0 if game.turn_founded else game.quiet_turns + 1
    skip = game.skip_next
    if event.reason == "wrong calls":
        skip = (False, skip[1]) if seat == 0 else (skip[0], False)
    if event.reason in ("discard", "pass", "hand card lock"):
        window = _extend(game.window, event, turn_over=True)
    elif event.reason == "time":
        window = _after_time_out(game.window, seat, event)
    else:
        window = None
    p = game.p
    return game._evolved(
        to_move=nxt,
        turn_number=game.turn_number + 1,
        window=window,
        turn_productive=False,
        turn_founded=False,
        turn_start_cards=loose_count(p, nxt),
        streaks=(streaks[0], streaks[1]),
        targets=(targets[0], targets[1]),
        quiet_turns=quiet,
        seen=frozenset({game.hhash}),
        emptied=frozenset(),
        skip_next=skip,
        draw_offer=None if game.draw_offer == 1 - seat else game.draw_offer,
        turn_started_at_ms=event.at_ms,
        move_started_at_ms=event.at_ms,
        derived=_same_table(game),
    )


def _crapette_called(game: GameState, event: CrapetteCalled, index: int) -> GameState:
    caller = event.caller
    window = game.window
    if event.verdict == "wrong":
        calls = list(game.wrong_calls)
        calls[caller] += 1
        skip = list(game.skip_next)
        if event.penalty:
            calls[caller] = 0
            skip[caller] = True
        # An action can be called once (docs/spec/rules.md §11). A wrong call by the offender
        # himself must not shield his fault, though: it spends his own call, the opponent keeps his.
        called = window
        if window is not None:
            if caller == window.offender:
                called = window._replace(self_called=True)
            else:
                called = window._replace(called=True)
        return game._evolved(
            window=called,
            wrong_calls=(calls[0], calls[1]),
            skip_next=(skip[0], skip[1]),
            last_event=event,
            derived=_same_table(game),
        )
    assert window is not None and window.base is not None
    # Everything but the piles comes back from before the faulty action; the piles follow as
    # each ActionVoided puts its card back.
    return window.base._evolved(
        p=game.p,
        hhash=game.hhash,
        window=None,
        wrong_calls=game.wrong_calls,
        skip_next=game.skip_next,
        draw_offer=game.draw_offer,
        last_event=event,
        derived=_same_table(game),
    )


def _action_voided(game: GameState, event: ActionVoided, index: int) -> GameState:
    p = game.p
    kind = event.voided
    hhash = game.hhash
    if kind == "CardMoved":
        assert event.src is not None and event.dst is not None
        p, hhash = move_card(p, hhash, INDEX[event.dst], INDEX[event.src])
    elif kind == "HandCardTurned":
        seat = event.seat
        hand = HAND[seat] if event.src is None else INDEX[event.src]  # the hand it came from
        p = _replace_piles(p, SHOWN[seat], (), hand, p[hand] + p[SHOWN[seat]])
    elif kind == "WasteTurnedOver":
        seat = event.seat
        p = _replace_piles(p, WASTE[seat], tuple(reversed(p[HAND[seat]])), HAND[seat], ())
    elif kind == "CardDiscarded":
        seat = event.seat
        waste = p[WASTE[seat]]
        p = _replace_piles(p, WASTE[seat], waste[:-1], SHOWN[seat], (waste[-1],))
    return game._evolved(p=p, hhash=hhash)


# The evolve function of each game event kind (the match events are `domain.matchfold`'s).
_EVOLVE: dict[type[Event], Callable[[GameState, Any, int], GameState]] = {
    CardMoved: _card_moved,
    CompulsoryMovePlayed: _compulsory_move_played,
    HandCardTurned: _hand_card_turned,
    CardDiscarded: _card_discarded,
    WasteTurnedOver: _waste_turned_over,
    Passed: _passed,
    TurnEnded: _turn_ended,
    CrapetteCalled: _crapette_called,
    ActionVoided: _action_voided,
    DrawOffered: _draw_offered,
    DrawAccepted: _draw_accepted,
    TimeExpired: _time_expired,
    GameWon: _game_won,
    GameStalemated: _game_stalemated,
    GameResigned: _game_resigned,
}
