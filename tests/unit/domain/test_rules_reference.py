"""A second, independent reading of docs/spec/rules.md §4–§6 (building rules, available cards, the
repetition guard and the classic priorities), written straight from the text, compared with the
engine at every position of random games under random option values (hypothesis).

It knows nothing of the engine but the public state (piles, to_move) and the events.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain import Card, Ruleset
from domain.actions import Action, Call
from domain.commands import Act, StartGame, StartMatch
from domain.engine import decide_and_fold, fault_of, legal_actions
from domain.events import CardMoved, CrapetteCalled, TurnEnded
from domain.ruleset import DiscardRule, EmptyHouse, Enforcement, Priorities, WastePlayable
from domain.state import MatchState

C1 = "priority: reserve to foundation first"
C2 = "priority: foundation first"
E = "priority: fill the empty house from your reserve first"
PLAYABLE = "discard: the hand card can still be played"
ACES = "priority: Aces to the foundations first"
RESERVE_TO_HOUSE = "priority: reserve to house first"
SHUFFLE = "priority: house to house only to free a better move"
HAND_TO_HOUSE = "priority: hand card to a house before the waste"

Piles = dict[str, tuple[Card, ...]]
Layout = tuple[tuple[Card, ...], ...]


def houses(piles: Piles) -> list[str]:
    return [name for name in (f"T{i}" for i in range(8)) if name in piles]


def layout(piles: Piles) -> Layout:
    return tuple(piles.get(f"T{i}", ()) for i in range(8))


def fits(rules: Ruleset, piles: Piles, seat: int, src: str, dst: str) -> bool:
    """§5's table, one card from `src` to `dst`."""
    card = piles[src][-1]
    pile = piles[dst]
    kind = dst[0]
    if kind == "F":
        if not pile:
            return card.rank == 1
        return pile[-1].suit == card.suit and pile[-1].rank + 1 == card.rank
    if kind == "T":
        if dst == src:
            return False
        if pile:
            top = pile[-1]
            return top.rank == card.rank + 1 and (top.suit in "HD") != (card.suit in "HD")
        if rules.empty_house == "king_only":
            return card.rank == 13
        if rules.empty_house == "reserve_first" and piles[f"R{seat}"]:
            return src == f"R{seat}"
        return True
    if dst in (f"R{1 - seat}", f"W{1 - seat}"):
        return bool(pile) and pile[-1].suit == card.suit and abs(pile[-1].rank - card.rank) == 1
    return False


def available(rules: Ruleset, piles: Piles, seat: int) -> list[str]:
    """§4's sources: reserve top, X, every house top (and the waste where the option says)."""
    found = [name for name in (f"R{seat}", f"X{seat}", *houses(piles)) if piles[name]]
    waste = rules.waste_playable == "always" or (
        rules.waste_playable == "after_hand_empty" and not piles[f"H{seat}"]
    )
    if waste and piles[f"W{seat}"]:
        found.append(f"W{seat}")
    return found


def moved(piles: Piles, src: str, dst: str) -> Piles:
    after = dict(piles)
    after[dst] = piles[dst] + (piles[src][-1],)
    after[src] = piles[src][:-1]
    return after


def reference_moves(rules: Ruleset, piles: Piles, seat: int, seen: set[Layout]) -> set[str]:
    targets = [*(f"F{i}" for i in range(8)), *houses(piles), f"R{1 - seat}", f"W{1 - seat}"]
    moves = set()
    for src in available(rules, piles, seat):
        for dst in targets:
            if not fits(rules, piles, seat, src, dst):
                continue
            if src[0] == "T" and dst[0] == "T" and layout(moved(piles, src, dst)) in seen:
                continue  # the in-turn repetition guard
            moves.add(f"{src}-{dst}")
    return moves


def reference_faults(
    rules: Ruleset,
    piles: Piles,
    seat: int,
    moves: set[str],
    seen: set[Layout],
    emptied: frozenset[str] = frozenset(),
) -> dict[str, str | None]:
    """§6 and §9's orders: the priority rule each legal action would break. `emptied`: the houses
    the mover emptied during this turn (the ones refill_at_once is about, §11)."""
    reserve, x = f"R{seat}", f"X{seat}"
    c1 = {m for m in moves if m.startswith(reserve + "-F")}
    c2 = {m for m in moves if "-F" in m and m not in c1}
    to_house = {m for m in moves if m.startswith(reserve + "-T")}
    fill = {m for m in to_house if not piles[m.split("-")[1]]}
    x_plays = {m for m in moves if m.startswith(x + "-")}
    playable = PLAYABLE if rules.discard_rule == "only_if_unplayable" and x_plays else None
    required: set[str] = set()
    rule = turn_rule = None
    end_rule = playable
    bad: dict[str, str] = {}
    refill = {m for m in fill if m.split("-")[1] in emptied}
    if refill and rules.empty_house == "refill_at_once":
        required, rule = refill, E
    elif rules.priorities == "finnish" and (aces := {m for m in c1 | c2 if is_ace(piles, m)}):
        required, rule = aces, ACES
    elif c1:
        required, rule = c1, C1
    elif c2:
        required, rule = c2, C2
    elif rules.priorities != "classic" and to_house:
        required, rule = to_house, RESERVE_TO_HOUSE
    elif rules.priorities == "classic":
        turn_rule = E if fill else None
    elif rules.priorities == "french6":
        for m in moves:
            src, dst = m.split("-")
            if src[0] == dst[0] == "T" and not frees(rules, moved(piles, src, dst), seat, seen):
                bad[m] = SHUFFLE
        if end_rule is None and any(m.split("-")[1][0] == "T" for m in x_plays):
            end_rule = HAND_TO_HOUSE
    faults: dict[str, str | None] = {
        m: (rule if required and m not in required else bad.get(m)) for m in moves
    }
    if piles[x]:
        faults["discard"] = rule if required else end_rule
    elif piles[f"H{seat}"] or piles[f"W{seat}"]:
        # E as the engine reads it: a reserve card that can go to an empty house.
        faults["turn"] = rule if required else turn_rule
    else:
        faults["pass"] = rule if required else None
    return faults


def is_ace(piles: Piles, move: str) -> bool:
    return piles[move.split("-")[0]][-1].rank == 1


def frees(rules: Ruleset, after: Piles, seat: int, seen: set[Layout]) -> bool:
    """french6: after a house-to-house move, can a card go to a foundation or the reserve top
    onto a house?"""
    for m in reference_moves(rules, after, seat, seen | {layout(after)}):
        if "-F" in m or m.startswith(f"R{seat}-T"):
            return True
    return False


class Guard:
    """The houses' layouts seen since the last action that was not a house-to-house move, and
    the houses the mover emptied during the turn."""

    def __init__(self, piles: Piles) -> None:
        self.seen = {layout(piles)}
        self.emptied: frozenset[str] = frozenset()

    def after(self, events: Sequence[object], piles: Piles) -> None:
        for event in events:
            if isinstance(event, CardMoved) and event.src[0] == "T":
                self.emptied |= {event.src}
            if isinstance(event, TurnEnded):
                self.emptied = frozenset()
        self.emptied = frozenset(h for h in self.emptied if not piles[h])
        if len(events) == 1 and isinstance(events[0], CrapetteCalled):
            return  # a wrong call changes nothing
        shuffle = (
            len(events) == 1
            and isinstance(events[0], CardMoved)
            and events[0].src[0] == "T"
            and events[0].dst[0] == "T"
        )
        if shuffle:
            self.seen.add(layout(piles))
        else:
            self.seen = {layout(piles)}


def ruleset(
    priorities: Priorities,
    waste: WastePlayable,
    empty: EmptyHouse,
    discard: DiscardRule,
    houses: int,
    enforcement: Enforcement,
) -> Ruleset:
    return replace(
        Ruleset(),
        priorities=priorities,
        waste_playable=waste,
        empty_house=empty,
        discard_rule=discard,
        houses_per_player=houses,
        enforcement=enforcement,
    )


RULESETS = st.builds(
    ruleset,
    st.sampled_from(["classic", "finnish", "french6"]),
    st.sampled_from(["never", "always", "after_hand_empty"]),
    st.sampled_from(["any", "king_only", "reserve_first", "refill_at_once"]),
    st.sampled_from(["unless_foundation", "only_if_unplayable"]),
    st.sampled_from([4, 2]),
    st.sampled_from(["call", "enforce", "lenient"]),
)


def text_of(action: Action) -> str:
    return action.notation()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rules=RULESETS,
    seed=st.binary(min_size=32, max_size=32).map(bytes.hex),
    choices=st.integers(0, 2**32),
)
def test_engine_agrees_with_a_second_reading_of_the_rules(
    rules: Ruleset, seed: str, choices: int
) -> None:
    rng = random.Random(choices)
    _, state = decide_and_fold(None, StartMatch("m-ref", rules, ("a", "b"), 0))
    _, state = decide_and_fold(state, StartGame(seed, None, 0))
    game = state.game
    assert game is not None
    guard = Guard(game.piles)
    for _ in range(300):
        game = state.game
        assert game is not None
        if game.over:
            break
        seat = game.to_move
        piles = game.piles
        moves = reference_moves(rules, piles, seat, guard.seen)
        faults = reference_faults(rules, piles, seat, moves, guard.seen, guard.emptied)
        listed = [a for a in legal_actions(state, seat) if not isinstance(a, Call)]
        if rules.enforcement == "enforce":
            expected = {text for text, fault in faults.items() if fault is None}
        else:
            expected = set(faults)
        assert {text_of(a) for a in listed} == expected, (seat, piles)
        for action in listed:
            assert fault_of(state, action) == faults[text_of(action)], text_of(action)
        state = step(state, listed, rng, guard)


def step(
    state: MatchState, listed: Sequence[Action], rng: random.Random, guard: Guard
) -> MatchState:
    game = state.game
    assert game is not None
    calls = [a for a in legal_actions(state, 1 - game.to_move) if isinstance(a, Call)]
    action: Action = calls[0] if calls and rng.random() < 0.3 else rng.choice(listed)
    events, state = decide_and_fold(state, Act(action, 0))
    assert state.game is not None
    guard.after(events, state.game.piles)
    return state


class Streaks:
    """docs/spec/rules.md §8's stalemate bookkeeping, kept from the events alone."""

    def __init__(self, loose: int) -> None:
        self.streaks = [0, 0]
        self.targets = [0, 0]
        self.quiet = 0
        self.loose_at_start = loose
        self.productive = False
        self.founded = False

    def see(self, event: object, mover: int) -> None:
        if isinstance(event, CardMoved):
            out_of_hand = event.src in (f"R{mover}", f"X{mover}")
            if out_of_hand or (event.dst[0] == "F" and event.src != f"W{mover}"):  # §11
                self.productive = True
            if event.dst[0] == "F":
                self.founded = True

    def turn_ended(self, seat: int, next_loose: int) -> bool:
        """Bookkeeping at the end of `seat`'s turn; True when the game is now stalemated."""
        if self.productive:
            self.streaks, self.targets = [0, 0], [0, 0]
        else:
            if self.streaks[seat] == 0:
                self.targets[seat] = max(1, self.loose_at_start)
            self.streaks[seat] += 1
        self.quiet = 0 if self.founded else self.quiet + 1
        self.productive = self.founded = False
        self.loose_at_start = next_loose
        both = all(self.streaks[s] > 0 and self.streaks[s] >= self.targets[s] for s in (0, 1))
        return both or self.quiet >= 400


def loose(state: MatchState, seat: int) -> int:
    assert state.game is not None
    return sum(len(state.game.pile(f"{kind}{seat}")) for kind in "HXW")


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(["g4a", "finnish", "french"]),
    seed=st.binary(min_size=32, max_size=32).map(bytes.hex),
    choices=st.integers(0, 2**32),
)
def test_stalemate_comes_exactly_when_a_second_reading_says(
    preset: str, seed: str, choices: int
) -> None:
    rng = random.Random(choices)
    lazy = rng.random() < 0.5
    mode: Enforcement = (
        "lenient" if lazy else "enforce"
    )  # no calls: voided turns would need a replay here
    rules = replace(Ruleset.preset(preset), enforcement=mode, move_time_limit_s=None)
    _, state = decide_and_fold(None, StartMatch("m-ref", rules, ("a", "b"), 0))
    _, state = decide_and_fold(state, StartGame(seed, None, 0))
    assert state.game is not None
    book = Streaks(loose(state, state.game.to_move))
    # Eager players build foundations (games end by a win); lazy ones turn and discard at once
    # when they may (null turns: games end in a stalemate).
    while state.game is not None and not state.game.over:
        mover = state.game.to_move
        listed = legal_actions(state, mover)
        founding = [a for a in listed if a.notation().split("-")[-1].startswith("F")]
        ending = [a for a in listed if a.notation() in ("turn", "discard", "pass")]
        if lazy and ending and rng.random() < 0.95:
            action = rng.choice(ending)
        else:
            action = rng.choice(founding if founding and rng.random() < 0.9 else listed)
        events, state = decide_and_fold(state, Act(action, 0))
        for i, event in enumerate(events):
            book.see(event, mover)
            if type(event).__name__ == "TurnEnded":
                assert isinstance(event, TurnEnded)
                due = book.turn_ended(event.seat, loose(state, event.next_seat))
                rest = [type(e).__name__ for e in events[i + 1 :]]
                assert due == (rest[:1] == ["GameStalemated"]), (event, rest, book.__dict__)
