"""The two functions that carry a match: `evolve` folds one event into the state, `decide` turns a
command into the events it causes (or refuses it with a `RulesError`).

`decide` evolves a scratch copy as it goes, so that every automatic consequence (waste turned
over, turn ended, stalemate, game and match won) is judged on exactly the state `evolve` will
produce. `decide_and_fold` returns that final state too, for callers that would otherwise fold
twice.
"""

from __future__ import annotations

from domain import deal
from domain.actions import (
    Abandon,
    AcceptDraw,
    Action,
    Call,
    Discard,
    Move,
    OfferDraw,
    Pass,
    Resign,
    TimeOut,
    Turn,
)
from domain.commands import Act, Command, JoinQueue, LeaveQueue, StartGame, StartMatch
from domain.errors import RulesError, quote
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
    MatchStarted,
    MatchWon,
    Passed,
    PlayerLeftQueue,
    PlayerQueued,
    SeatsRotated,
    StalemateReason,
    TimeExpired,
    TurnEnded,
    TurnEndReason,
    WasteTurnedOver,
)
from domain.levels import Level, Step
from domain.matchfold import evolve, fold
from domain.moves import explain
from domain.piles import (
    ALL_PILES,
    FOUNDATIONS,
    HAND,
    HANDS,
    INDEX,
    RESERVE,
    SECOND_HAND,
    SECOND_RESERVE,
    SHOWN,
    THIRD_HAND,
    WASTE,
)
from domain.priority import MESSAGES, legal_steps, priority
from domain.ruleset import ROTATION_MAX_PEOPLE
from domain.sequences import is_sequence_move, single_moves
from domain.state import GameState, MatchState, Piles, Session

STALEMATE_TURNS = 400  # named in StalemateReason ("400 turns without a foundation build")


# ---------------------------------------------------------------------------------------- decide


class Decided(list[Event]):
    """The events of one command (a list, as `decide` always returned), with the states they
    fold into: `decide` computes each one to judge the next, and a caller that folds the events
    onto the state it decided on (the server, after appending them) takes them from here
    (`states_from`) instead of computing them twice. Nothing is kept anywhere else: the states
    travel with the events and go when the caller drops them."""

    __slots__ = ("chain",)

    # (state before, event, state after) per event, in order.
    chain: list[tuple[MatchState | None, Event, MatchState]]

    @classmethod
    def one(cls, before: MatchState | None, event: Event) -> tuple[Decided, MatchState]:
        """A command's only event, and the state after it."""
        decided = cls((event,))
        after = evolve(before, event)
        decided.chain = [(before, event, after)]
        return decided, after

    def states_from(self, state: MatchState | None) -> list[MatchState] | None:
        """The state after each event, if these events were decided on exactly `state` and the
        list still holds exactly them (None otherwise: fold them)."""
        chain = self.chain
        if len(chain) != len(self) or not chain or chain[0][0] is not state:
            return None
        for (_, event, _), held in zip(chain, self, strict=True):
            if event is not held:
                return None
        return [after for _, _, after in chain]


class _Scratch:
    """The events of one command so far, with the state they lead to."""

    __slots__ = ("state", "events", "chain")

    def __init__(self, state: MatchState) -> None:
        self.state = state
        self.events = Decided()
        self.chain = self.events.chain = []

    def emit(self, event: Event) -> None:
        before = self.state
        self.state = after = evolve(before, event)
        self.events.append(event)
        self.chain.append((before, event, after))

    @property
    def game(self) -> GameState:
        game = self.state.game
        assert game is not None
        return game


def decide(state: MatchState | None, command: Command) -> Decided:
    """Every event the command causes (with the states they lead to: `Decided`), or `RulesError`
    if the rules refuse it."""
    return decide_and_fold(state, command)[0]


def decide_and_fold(state: MatchState | None, command: Command) -> tuple[Decided, MatchState]:
    """`decide` plus the state its events fold into."""
    if isinstance(command, StartMatch):
        if state is not None:
            raise RulesError("match started", "this match has already started")
        if command.ruleset.rotation != "off" and command.players[0] == command.players[1]:
            raise RulesError("name taken", "at a rotation table every player has his own name")
        event = MatchStarted(command.match_id, command.ruleset, command.players, command.at_ms)
        return Decided.one(None, event)
    if state is None:
        raise RulesError("no match", "start the match first")
    if state.finished:
        raise RulesError("match over", "this match is over")
    if isinstance(command, (JoinQueue, LeaveQueue)):
        return Decided.one(state, _queue_event(state, command))
    scratch = _Scratch(state)
    if isinstance(command, StartGame):
        scratch.emit(_start_game(state, command))
        return scratch.events, scratch.state
    game = state.game
    if game is None:
        raise RulesError("no game", "no game has been dealt yet")
    if isinstance(command.action, Abandon):
        _abandon(scratch, command.action, command.at_ms)
        return scratch.events, scratch.state
    if game.over:
        raise RulesError("game over", "this game is over")
    _act(scratch, command)
    return scratch.events, scratch.state


def _queue_event(state: MatchState, command: JoinQueue | LeaveQueue) -> Event:
    """A person joins or leaves the queue of a rotation table (docs/spec/rules.md §10)."""
    session = state.session
    if session is None:
        raise RulesError("no rotation", "only a rotation table has a queue")
    name = command.name
    if isinstance(command, LeaveQueue):
        if name not in session.queue:
            raise RulesError("not waiting", f"{name} is not waiting for a seat")
        return PlayerLeftQueue(name, command.at_ms)
    if not isinstance(name, str) or not name:
        raise RulesError("no name", "a player has a name")
    if name in session.people:
        raise RulesError("name taken", f"{name} is already a player of this table")
    if len(session.people) >= ROTATION_MAX_PEOPLE:
        raise RulesError("table full", f"a rotation table holds {ROTATION_MAX_PEOPLE} people")
    return PlayerQueued(name, command.at_ms)


def _start_game(state: MatchState, command: StartGame) -> GameStarted:
    if state.game is not None and not state.game.over:
        raise RulesError("game running", "the current game is not over yet")
    if (command.seed is None) == (command.packs is None):
        raise RulesError("deal", "a game is dealt from a seed or from two packs, not both")
    index = state.game.game_index + 1 if state.game is not None else 0
    if command.seed is not None:
        try:
            packs = deal.packs_from_seed(command.seed)
            commitment: str | None = deal.commitment(command.seed)
        except deal.DealError as exc:
            raise RulesError("deal", exc.message) from None
        stored = None
    else:
        assert command.packs is not None
        packs = (list(command.packs[0]), list(command.packs[1]))
        for seat, pack in enumerate(packs):
            if len(pack) != 52 or len({(c.rank, c.suit) for c in pack}) != 52:
                raise RulesError("deal", f"pack {seat} must hold each of the 52 cards once")
            if any(c.owner != seat for c in pack):
                raise RulesError("deal", f"every card of pack {seat} must belong to seat {seat}")
        commitment = None
        stored = (tuple(packs[0]), tuple(packs[1]))
    seat, reason = deal.first_player(
        state.ruleset, packs, command.seed, index, state.previous_first
    )
    return GameStarted(index, command.seed, stored, commitment, seat, reason, command.at_ms)


def _act(scratch: _Scratch, command: Act) -> None:
    action = command.action
    at = command.at_ms
    game = scratch.game
    seat = action.seat
    if seat not in (0, 1):
        raise RulesError("no such seat", f"seat {quote(seat)} does not exist")
    kind = type(action)
    if kind is Move or kind is Turn or kind is Discard or kind is Pass:
        # The play actions of the player to move, nearly every command: straight there.
        if seat != game.to_move:
            raise RulesError("not your turn", "it is your opponent's turn")
        if isinstance(action, Move):
            _move(scratch, action, at)
        else:
            _turn_discard_pass(scratch, action, _judge(game, action), at)
        return
    if isinstance(action, Call):
        _call(scratch, action, at)
        return
    if isinstance(action, Resign):
        _resign(scratch, seat, at)
        _match_end(scratch, at)
        return
    if isinstance(action, OfferDraw):
        if game.draw_offer == seat:
            raise RulesError(
                "draw offered", "you have already offered a stalemate", "draw_already_offered"
            )
        if game.draw_offer == 1 - seat:
            raise RulesError(
                "draw offered", "your opponent offers a stalemate: accept it", "draw_offered_to_you"
            )
        scratch.emit(DrawOffered(seat, at))
        return
    if isinstance(action, AcceptDraw):
        if game.draw_offer != 1 - seat:
            raise RulesError("no draw offer", "your opponent has not offered a stalemate")
        scratch.emit(DrawAccepted(seat, at))
        _stalemate(scratch, "agreed", at)
        return
    if isinstance(action, TimeOut):
        if seat != game.to_move:
            raise RulesError("not your turn", "it is your opponent's turn")
        _time_out(scratch, action, at)
        return
    raise RulesError("unknown action", quote(action))


def _resign(scratch: _Scratch, seat: int, at: int) -> None:
    """The seat resigns the game in play: scored as the opponent's win with the cards where they
    lie (docs/spec/rules.md §8)."""
    loser_penalty = scratch.game.penalty(seat)
    score = (0, 30 + loser_penalty) if seat == 0 else (30 + loser_penalty, 0)
    scratch.emit(GameResigned(seat, 1 - seat, score, at))


def _abandon(scratch: _Scratch, action: Abandon, at: int) -> None:
    """The seat gives up the whole match (docs/spec/rules.md §8): the game in play, if any, is
    resigned as usual, then the opponent wins the match at once, whatever the totals; no game
    nobody plays is dealt. Between games only the match ends. A rotation table has no match end
    to give away: a seated person resigns his game, a waiting one leaves the queue."""
    seat = action.seat
    if seat not in (0, 1):
        raise RulesError("no such seat", f"seat {quote(seat)} does not exist")
    if scratch.state.session is not None:
        raise RulesError(
            "rotation table",
            "a rotation table has no match to abandon: resign the game, or leave the queue",
            "abandon_at_rotation",
        )
    if not scratch.game.over:
        _resign(scratch, seat, at)
    won = MatchWon(1 - seat, scratch.state.totals, at, abandoned_by=seat, claimed=action.claimed)
    scratch.emit(won)


def _move(scratch: _Scratch, action: Move, at: int) -> None:
    """A judged move of the player to move (a sequence move: the single moves it stands for),
    then the win it may bring."""
    game = scratch.game
    if is_sequence_move(game, action):
        _sequence(scratch, action, at)
        return
    fault = _judge(game, action)
    card = game.p[INDEX[action.src]][-1]
    scratch.emit(CardMoved(action.seat, action.src, action.dst, card, fault, at))
    _won(scratch, action.seat, at)


def _turn_discard_pass(scratch: _Scratch, action: Action, fault: str | None, at: int) -> None:
    """A judged turn, discard or pass of the player to move, with its automatic consequences."""
    game = scratch.game
    seat = action.seat
    if isinstance(action, Turn):
        hand = _turned_hand(game, seat, action.hand)
        if hand is None:  # every hand is empty: the waste becomes H first (§4, §10)
            scratch.emit(WasteTurnedOver(seat, len(game.p[WASTE[seat]]), at))
            hand = HAND[seat]
        turned = scratch.game.p[hand][-1]
        other = None if hand == HAND[seat] else ALL_PILES[hand]
        named = action.hand is not None
        scratch.emit(HandCardTurned(seat, turned, fault, at, other, named))
        if game.ruleset.hand_card_lock == "on" and not _x_fits(scratch.game, seat):
            scratch.emit(CardDiscarded(seat, turned, None, at, auto="hand card lock"))
            if not _won(scratch, seat, at):
                _end_turn(scratch, seat, "hand card lock", at)
    elif isinstance(action, Discard):
        scratch.emit(CardDiscarded(seat, game.p[SHOWN[seat]][-1], fault, at))
        if not _won(scratch, seat, at):
            _end_turn(scratch, seat, "discard", at)
    elif isinstance(action, Pass):
        scratch.emit(Passed(seat, fault, at))
        _end_turn(scratch, seat, "pass", at)
    else:  # pragma: no cover - every action type is handled above
        raise RulesError("unknown action", quote(action))


def _sequence(scratch: _Scratch, action: Move, at: int) -> None:
    """A sequence move, played as the single moves it stands for (each one judged alone)."""
    seat = action.seat
    for step in single_moves(scratch.game, action):
        game = scratch.game
        fault = _judge(game, step)
        card = game.p[INDEX[step.src]][-1]
        scratch.emit(CardMoved(seat, step.src, step.dst, card, fault, at))


def _judge(game: GameState, action: Action) -> str | None:
    """Check a play action of the player to move: building rules raise, a priority breach is
    raised in `enforce`, returned as the fault in `call`, ignored in `lenient`."""
    rule = _breach(game, action)
    if rule is None:
        return None
    mode = game.ruleset.enforcement
    if mode == "enforce":
        raise RulesError(rule, MESSAGES[rule])
    return rule if mode == "call" else None


def _breach(game: GameState, action: Action) -> str | None:
    """Raise for a building-rule breach; return the priority rule the action breaks, if any."""
    seat = action.seat
    p = game.p
    level = priority(game, seat)
    if isinstance(action, Move):
        src, dst = INDEX.get(action.src), INDEX.get(action.dst)
        if src is None or dst is None:
            raise RulesError("no such pile", f"{action.notation()} names no pile", "names_no_pile")
        step = (src, dst)
        if step not in legal_steps(game, seat):
            raise explain(game, seat, src, dst)
        if action.card is not None and action.card.code != p[src][-1].code:
            raise RulesError(
                "card mismatch",
                f"the top of {action.src} is {p[src][-1].code}",
                pile=action.src,
                card=p[src][-1].code,
            )
        if level.required is not None:
            return None if step in level.required else level.required_rule
        return level.bad_rule if step in level.bad_steps else None
    if isinstance(action, Turn):
        if p[SHOWN[seat]]:
            raise RulesError("hand card showing", "play or discard your hand card first")
        if _turned_hand(game, seat, action.hand) is None and not p[WASTE[seat]]:
            raise RulesError("no hand card", "your hand and waste are empty")
        return level.required_rule if level.required is not None else level.turn_rule
    if isinstance(action, Discard):
        if not p[SHOWN[seat]]:
            raise RulesError("nothing to discard", "turn a hand card first")
        return level.required_rule if level.required is not None else level.end_rule
    if isinstance(action, Pass):
        if p[SHOWN[seat]] or _has_hand(p, seat) or p[WASTE[seat]]:
            raise RulesError(
                "cannot pass", "you may pass only with your hand, X and waste all empty"
            )
        return level.required_rule if level.required is not None else None
    return None


def _has_hand(p: Piles, seat: int) -> bool:
    """Does the seat hold a hand card (in any of its three hands, §10)?"""
    return bool(p[HAND[seat]] or p[SECOND_HAND[seat]] or p[THIRD_HAND[seat]])


def _turned_hand(game: GameState, seat: int, name: str | None) -> int | None:
    """The hand a turn takes its card from: the one it names, else the first with cards in the
    order H, I, J (docs/spec/rules.md §10). None when every hand is empty: the waste turns over
    into H first. Raises for a hand the seat may not turn from."""
    p = game.p
    if name is None:
        for hand in HANDS[game.ruleset.hands_per_player][seat]:
            if p[hand]:
                return hand
        return None
    hand = INDEX.get(name, -1)
    if game.ruleset.hands_per_player != 3:
        raise RulesError(
            "no such pile",
            "these rules deal one hand per player: turn names none",
            "one_hand_layout",
        )
    if hand not in HANDS[3][seat]:
        if hand in HANDS[3][1 - seat]:
            raise RulesError(
                "not available", f"{name} is your opponent's", "opponents_pile", pile=name
            )
        raise RulesError("no such pile", f"turn {name} names no hand", "names_no_pile")
    if p[hand]:
        return hand
    if hand == HAND[seat] and not _has_hand(p, seat):
        return None  # the waste turns over into H, the hand named
    raise RulesError("not available", f"{name} is empty", "pile_empty", pile=name)


def _x_fits(game: GameState, seat: int) -> bool:
    return any(src == SHOWN[seat] for src, _ in legal_steps(game, seat))


def _won(scratch: _Scratch, seat: int, at: int) -> bool:
    """The mover wins at once when his reserve(s), hand and X (and waste, classic) are empty."""
    game = scratch.game
    p = game.p
    if p[RESERVE[seat]] or p[SHOWN[seat]] or p[SECOND_RESERVE[seat]] or _has_hand(p, seat):
        return False
    if p[WASTE[seat]] and game.ruleset.win == "reserve_hand_waste":
        return False
    loser = 1 - seat
    points = 30 + game.penalty(loser)
    score = (points, 0) if seat == 0 else (0, points)
    scratch.emit(GameWon(seat, "all cards played", score, at))
    _match_end(scratch, at)
    return True


def _end_turn(scratch: _Scratch, seat: int, reason: TurnEndReason, at: int) -> None:
    scratch.emit(TurnEnded(seat, 1 - seat, reason, at))
    if _stalemate_due(scratch, at):
        return
    if scratch.game.skip_next[1 - seat]:
        scratch.emit(TurnEnded(1 - seat, seat, "wrong calls", at))
        _stalemate_due(scratch, at)


def _stalemate_due(scratch: _Scratch, at: int) -> bool:
    game = scratch.game
    streaks, targets = game.streaks, game.targets
    if game.quiet_turns >= STALEMATE_TURNS:
        _stalemate(scratch, "400 turns without a foundation build", at)  # STALEMATE_TURNS
        return True
    s0, s1 = streaks
    if s0 > 0 and s0 >= targets[0] and s1 > 0 and s1 >= targets[1]:  # both seats stuck
        _stalemate(scratch, "both players went through their hands without progress", at)
        return True
    return False


def _stalemate(scratch: _Scratch, reason: StalemateReason, at: int) -> None:
    game = scratch.game
    pen = (game.penalty(0), game.penalty(1))
    score = (pen[1] - pen[0], 0) if pen[0] < pen[1] else (0, pen[0] - pen[1])
    scratch.emit(GameStalemated(pen, score, reason, at))
    _match_end(scratch, at)


def _match_end(scratch: _Scratch, at: int) -> None:
    match = scratch.state
    if match.session is not None:
        _session_end(scratch, match, match.session, at)
        return
    kind, target = match.ruleset.match_kind, match.ruleset.match_target
    counts = match.totals if kind == "points" else match.wins
    if max(counts) >= target and counts[0] != counts[1]:
        winner = 0 if counts[0] > counts[1] else 1
        scratch.emit(MatchWon(winner, match.totals, at))


def _session_end(scratch: _Scratch, match: MatchState, session: Session, at: int) -> None:
    """After a game at a rotation table (docs/spec/rules.md §10): the session ends when one
    person's total (or wins) reaches the target alone at the top; otherwise, after a game with a
    winner, one seated person gives his seat to the first of the queue and goes to its back."""
    kind, target = match.ruleset.match_kind, match.ruleset.match_target
    counts = session.totals if kind == "points" else session.wins
    best = max(counts)
    if best >= target and counts.count(best) == 1:
        person = session.people[counts.index(best)]
        if person in match.players:  # only the seated score: always so
            scratch.emit(MatchWon(match.players.index(person), match.totals, at, person))
            return
    game = scratch.game
    result = game.result
    if result is None or result.kind == "stalemate" or result.winner is None:
        return  # after a stalemate nobody moves
    if not session.queue:
        return
    winner = result.winner
    seat = winner if session.mode == "winner_out" else 1 - winner
    left, entered = match.players[seat], session.queue[0]
    players = (entered, match.players[1]) if seat == 0 else (match.players[0], entered)
    queue = (*session.queue[1:], left)
    scratch.emit(SeatsRotated(game.game_index, left, entered, seat, players, queue, at))


def _time_out(scratch: _Scratch, action: TimeOut, at: int) -> None:
    game = scratch.game
    limit = game.ruleset.move_time_limit_s
    if limit is None:
        raise RulesError("no time limit", "these rules have no time limit")
    if at < game.move_started_at_ms + limit * 1000:
        raise RulesError("time not up", f"seat {action.seat} still has time to move")
    seat = action.seat
    scratch.emit(TimeExpired(seat, at))
    shown = game.p[SHOWN[seat]]
    if shown:
        scratch.emit(CardDiscarded(seat, shown[-1], None, at, auto="time"))
        if _won(scratch, seat, at):
            return
    _end_turn(scratch, seat, "time", at)


# ------------------------------------------------------------------------------------ the call


def _call(scratch: _Scratch, action: Call, at: int) -> None:
    game = scratch.game
    caller = action.seat
    if game.ruleset.enforcement != "call":
        raise RulesError("no calls", "these rules take no Crapette calls")
    window = game.window
    if window is None or window.called or (window.self_called and caller == window.offender):
        # An action is called once (docs/spec/rules.md §11): no wrong call, nothing recorded.
        raise RulesError("call window closed", "there is no action you may call now")
    offender = window.offender
    named = action.move.notation() if action.move is not None else None
    if window.fault is None or caller == offender:
        penalty = (
            game.ruleset.wrong_call_penalty == "lose_turn_after_3"
            and game.wrong_calls[caller] + 1 >= 3
        )
        target = window.first_index
        scratch.emit(CrapetteCalled(caller, offender, target, "wrong", None, at, penalty, named))
        return
    first, fault = window.first_index, window.fault
    scratch.emit(CrapetteCalled(caller, offender, first, "right", fault, at, False, named))
    for event in reversed(window.events):
        scratch.emit(_voiding(event, at))
    base = window.base
    assert base is not None  # kept for every faulty action
    step = _compulsory_step(base, window.action, action.move)
    if step is not None:
        src, dst = step
        card = base.p[src][-1]
        scratch.emit(CompulsoryMovePlayed(offender, ALL_PILES[src], ALL_PILES[dst], card, at))
        if _won(scratch, offender, at):
            return
    shown = scratch.game.p[SHOWN[offender]]
    if shown:
        scratch.emit(CardDiscarded(offender, shown[-1], None, at, auto="crapette"))
        if _won(scratch, offender, at):
            return
    _end_turn(scratch, offender, "crapette", at)


def _voiding(event: object, at: int) -> ActionVoided:
    if isinstance(event, CardMoved):
        return ActionVoided(event.seat, "CardMoved", event.src, event.dst, event.card, 1, at)
    if isinstance(event, HandCardTurned):
        x, h = f"X{event.seat}", event.hand_name
        return ActionVoided(event.seat, "HandCardTurned", h, x, event.card, 1, at)
    if isinstance(event, WasteTurnedOver):
        w, h = f"W{event.seat}", f"H{event.seat}"
        return ActionVoided(event.seat, "WasteTurnedOver", w, h, None, event.count, at)
    if isinstance(event, CardDiscarded):
        x, w = f"X{event.seat}", f"W{event.seat}"
        return ActionVoided(event.seat, "CardDiscarded", x, w, event.card, 1, at)
    if isinstance(event, Passed):
        return ActionVoided(event.seat, "Passed", None, None, None, 0, at)
    if isinstance(event, TimeExpired):
        return ActionVoided(event.seat, "TimeExpired", None, None, None, 0, at)
    assert isinstance(event, TurnEnded)
    return ActionVoided(event.seat, "TurnEnded", None, None, None, 0, at)


def compulsory_moves(base: GameState, action: Action) -> tuple[Step, ...]:
    """The moves a right call on `action` (played from `base`) may play, default first."""
    level: Level = priority(base, action.seat)
    if level.required is not None:
        return level.required
    if isinstance(action, Turn):
        return level.turn_moves
    if isinstance(action, Discard):
        return level.end_moves
    return ()


def _compulsory_step(base: GameState, action: Action, named: Move | None) -> Step | None:
    moves = compulsory_moves(base, action)
    if not moves:
        return None
    if named is not None:
        step = (INDEX.get(named.src, -1), INDEX.get(named.dst, -1))
        if step in moves:
            return step
    return moves[0]


# ---------------------------------------------------------------------------------- queries


def legal_actions(state: MatchState | None, seat: int) -> list[Action]:
    """Every game action `decide` would accept from `seat` now (resign and offer-draw, always
    open in a running game, are left out; so is the server's time-out)."""
    if state is None or state.finished or state.game is None or state.game.over:
        return []
    game = state.game
    derived = game.derived
    known = derived.actions[seat]
    if known is not None:
        return list(known)
    actions: list[Action] = []
    if seat == game.to_move:
        actions.extend(_play_actions(game, seat))
    window = game.window
    if (
        window is not None
        and not window.called
        and window.offender != seat
        and game.ruleset.enforcement == "call"
    ):
        actions.append(_CALL[seat])
    if game.draw_offer == 1 - seat:
        actions.append(AcceptDraw(seat))
    listed = derived.actions
    derived.actions = (tuple(actions), listed[1]) if seat == 0 else (listed[0], tuple(actions))
    return actions


# Actions are immutable, so the listed ones are made once and shared.
_MOVES = {
    (seat, src, dst): Move(seat, ALL_PILES[src], ALL_PILES[dst])
    for seat in (0, 1)
    for src in range(len(ALL_PILES))
    for dst in range(len(ALL_PILES))
}
_MOVES_OF = tuple(
    {(src, dst): move for (owner, src, dst), move in _MOVES.items() if owner == seat}
    for seat in (0, 1)
)
_TURN = (Turn(0), Turn(1))
_CALL = (Call(0), Call(1))
_DISCARD = (Discard(0), Discard(1))
_PASS = (Pass(0), Pass(1))


def _play_actions(game: GameState, seat: int) -> list[Action]:
    """The mover's moves, turn, discard or pass that `decide` accepts. Priority filters them only
    under `enforce` (elsewhere a breach is a fault, or nothing), so only then is it computed."""
    p = game.p
    moves = _MOVES_OF[seat]
    steps = legal_steps(game, seat)
    turn_ok = end_ok = True
    if game.ruleset.enforcement == "enforce":
        level = priority(game, seat)
        if level.required is not None:
            steps = [step for step in steps if step in level.required]
            turn_ok = end_ok = False
        else:
            if level.bad_steps:
                steps = [step for step in steps if step not in level.bad_steps]
            turn_ok = not level.turn_rule
            end_ok = not level.end_rule
    actions: list[Action] = [moves[step] for step in steps]
    shown, waste = p[SHOWN[seat]], p[WASTE[seat]]
    if shown:
        if end_ok:
            actions.append(_DISCARD[seat])
    elif _has_hand(p, seat) or waste:
        if turn_ok:
            actions.append(_TURN[seat])
            if game.ruleset.hands_per_player == 3:
                actions.extend(_named_turns(p, seat))
    elif end_ok or game.ruleset.enforcement != "enforce" or _pass_ok(game, seat):
        actions.append(_PASS[seat])
    return actions


# The named turns of three hands (§10), made once: `turn H0` … `turn J1`.
_NAMED_TURNS = {hand: Turn(seat, ALL_PILES[hand]) for seat in (0, 1) for hand in HANDS[3][seat]}


def _named_turns(p: Piles, seat: int) -> list[Action]:
    """A turn naming each hand with cards; `turn H0` alone when the waste turns over into H."""
    hands = HANDS[3][seat]
    named: list[Action] = [_NAMED_TURNS[hand] for hand in hands if p[hand]]
    return named or [_NAMED_TURNS[HAND[seat]]]


def _pass_ok(game: GameState, seat: int) -> bool:
    """Under `enforce`: a pass breaks priority only while a required move waits."""
    return priority(game, seat).required is None


def fault_of(state: MatchState, action: Action) -> str | None:
    """The priority rule a legal play action would break (None: no fault, or not a play action).
    Raises `RulesError` for a building-rule breach. Independent of the enforcement mode."""
    game = state.game
    if game is None or not isinstance(action, (Move, Turn, Discard, Pass)):
        return None
    return _breach(game, action)


def is_compulsory(state: MatchState, action: Action) -> bool:
    """True when priority demands one of a few moves now and `action` is one of them: every
    other action would break that rule (docs/spec/rules.md §6, `Level.required`). A move that is
    only due before a turn or a discard (an empty house waiting for the reserve) is not."""
    game = state.game
    if game is None or not isinstance(action, Move):
        return False
    required = priority(game, action.seat).required
    if not required:
        return False
    return (INDEX.get(action.src, -1), INDEX.get(action.dst, -1)) in required


def check(state: MatchState | None, action: Action, at_ms: int = 0) -> None:
    """Raise the `RulesError` that `decide` would raise for this action, else return."""
    decide(state, Act(action, at_ms if at_ms else _now_of(state)))


def _now_of(state: MatchState | None) -> int:
    if state is None or state.game is None:
        return 0
    return max(state.game.move_started_at_ms, 0)


__all__ = [
    "FOUNDATIONS",
    "check",
    "compulsory_moves",
    "decide",
    "evolve",
    "fault_of",
    "fold",
    "is_compulsory",
    "legal_actions",
    "decide_and_fold",
]
