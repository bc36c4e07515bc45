"""Building rules (docs/spec/rules.md §4–§5): which card may go where, and why not.

Moves are handled inside the engine as (source index, destination index) pairs over the pile
tuple; `domain.actions.Move` is their public face.
"""

from __future__ import annotations

from domain.cards import RANKS, SUITS, Card
from domain.derived import FoundationIndex, HouseIndex
from domain.errors import RulesError
from domain.levels import Step
from domain.piles import (
    ALL_PILES,
    FIRST_FOUNDATION,
    FIRST_HOUSE,
    FOUNDATIONS,
    HAND,
    HAND_SET,
    HANDS,
    HOUSE_SET,
    HOUSES,
    RESERVE,
    SECOND_HAND,
    SECOND_RESERVE,
    SHOWN,
    THIRD_HAND,
    WASTE,
    house_indices,
)
from domain.state import GameState

_LAYOUT_HOUSES = {4: frozenset(house_indices(4)), 2: frozenset(house_indices(2))}

# Zobrist keys for the repetition guard: one fixed 64-bit number per (card, house, depth); a
# layout of the houses hashes to the XOR of its cards' keys, updated in O(1) per move. Fixed
# seed, so every program replaying a record gets the same hashes (a false repetition would need
# a 64-bit collision).
_DEPTH = 32
_ZOBRIST: dict[Card, tuple[int, ...]] = {}


def _zobrist_keys() -> None:
    import random

    rng = random.Random(0x5EED_C2A9)
    for owner in (0, 1):
        for suit in SUITS:
            for rank in range(1, 14):
                _ZOBRIST[Card(rank, suit, owner)] = tuple(
                    rng.getrandbits(64) for _ in range(len(HOUSES) * _DEPTH)
                )


_zobrist_keys()


def houses_hash(p: tuple[tuple[Card, ...], ...]) -> int:
    """The Zobrist hash of the houses' layout (cards, order and owners)."""
    h = 0
    for house, pile in enumerate(HOUSES):
        for depth, card in enumerate(p[pile]):
            h ^= _ZOBRIST[card][house * _DEPTH + depth]
    return h


_HOUSE_LIST = {4: house_indices(4), 2: house_indices(2)}
# The opponent's piles a seat may load: reserve, second reserve (empty unless §10's two
# reserves), waste.
_LOAD_PILES = (
    (RESERVE[1], SECOND_RESERVE[1], WASTE[1]),
    (RESERVE[0], SECOND_RESERVE[0], WASTE[0]),
)


def houses_of(state: GameState) -> tuple[int, ...]:
    return _HOUSE_LIST[state.ruleset.houses_per_player]


def waste_playable(state: GameState, seat: int) -> bool:
    option = state.ruleset.waste_playable
    if option == "never":
        return False
    if option == "always":
        return True
    p = state.p  # after_hand_empty: every hand (all three, §10) is empty
    return not (p[HAND[seat]] or p[SECOND_HAND[seat]] or p[THIRD_HAND[seat]])


def sources(state: GameState, seat: int) -> list[int]:
    """The piles whose top card the seat may move now: reserves, X, houses (and maybe waste)."""
    p = state.p
    found = [i for i in (RESERVE[seat], SECOND_RESERVE[seat], SHOWN[seat]) if p[i]]
    found.extend(h for h in houses_of(state) if p[h])
    if p[WASTE[seat]] and waste_playable(state, seat):
        found.append(WASTE[seat])
    return found


_ACE_KEYS = tuple(Card(1, suit).fkey for suit in SUITS)


def foundation_index(state: GameState) -> FoundationIndex:
    """The foundations by the key of the card they take next (`Card.fkey`: an empty one takes
    any Ace, a started one its top's `fwant`), lowest-numbered first; kept in `state.derived`,
    and handed on to the next state while no foundation changes (`Derived.handed_on`)."""
    p = state.p
    index: dict[int, list[int]] = {}
    empty: list[int] = []
    for f in FOUNDATIONS:
        pile = p[f]
        if pile:
            key = pile[-1].fwant
            if key:
                got = index.get(key)
                if got is None:
                    index[key] = [f]
                else:
                    got.append(f)
        else:
            empty.append(f)
    if empty:
        for key in _ACE_KEYS:  # no started foundation wants an Ace
            index[key] = empty
    state.derived.foundations = index
    return index


def house_index(state: GameState) -> HouseIndex:
    """The houses by the key of the card they take next (`Card.hkey`), the empty ones and the
    ones with a card to move, lowest-numbered first; kept like the foundation index."""
    p = state.p
    wanted: dict[int, list[int]] = {}
    empty: list[int] = []
    full: list[int] = []
    for h in _HOUSE_LIST[state.ruleset.houses_per_player]:
        pile = p[h]
        if pile:
            full.append(h)
            key = pile[-1].hwant
            if key:
                got = wanted.get(key)
                if got is None:
                    wanted[key] = [h]
                else:
                    got.append(h)
        else:
            empty.append(h)
    index = (wanted, empty, full)
    state.derived.houses = index
    return index


def _raw_steps(state: GameState, seat: int, seen: frozenset[int] | None = None) -> list[Step]:
    """Every move the building rules allow; with `seen`, house-to-house moves that recreate one
    of those house layouts (the repetition guard) are left out.

    Runs for every position the engine meets, so the destinations are indexed once by the
    integer key of the card they want (`Card.fkey`, `Card.hkey`) instead of testing every source
    against every pile, and the sources are listed inline (the order of `sources`).
    """
    p = state.p
    ruleset = state.ruleset
    derived = state.derived
    wanted_f = derived.foundations
    if wanted_f is None:
        wanted_f = foundation_index(state)
    houses = derived.houses
    if houses is None:
        houses = house_index(state)
    wanted_h, empty_h, full_h = houses
    sources: list[int] = []
    reserve, shown, waste = RESERVE[seat], SHOWN[seat], WASTE[seat]
    second = SECOND_RESERVE[seat]  # empty unless two reserves (§10): R's steps come first
    if p[reserve]:
        sources.append(reserve)
    if p[second]:
        sources.append(second)
    if p[shown]:
        sources.append(shown)
    sources.extend(full_h)
    if p[waste]:
        playable = ruleset.waste_playable
        if playable == "always" or (playable == "after_hand_empty" and waste_playable(state, seat)):
            sources.append(waste)
    wanted_l: dict[int, list[int]] = {}
    for i in _LOAD_PILES[seat]:  # the opponent's reserve and waste: same suit, one apart
        pile = p[i]
        if pile:
            key = pile[-1].fkey
            for k in (key - 1, key + 1):
                got = wanted_l.get(k)
                if got is None:
                    wanted_l[k] = [i]
                else:
                    got.append(i)
    option = ruleset.empty_house
    any_empty = option == "any" or option == "refill_at_once"
    king_only = option == "king_only"
    reserve_first = option == "reserve_first"
    reserve_lasts = bool(p[reserve] or p[second])
    hhash = state.hhash
    steps: list[Step] = []
    append = steps.append
    # Most lookups miss, and `key in index` is cheaper than `index.get(key)`.
    for src in sources:
        pile = p[src]
        card = pile[-1]
        fkey = card.fkey
        if fkey in wanted_f:
            for f in wanted_f[fkey]:
                append((src, f))
        hkey = card.hkey
        targets = wanted_h[hkey] if hkey in wanted_h else ()  # noqa: SIM401 (see above)
        if empty_h and (
            any_empty
            or (king_only and card.rank == 13)
            or (reserve_first and (src in (reserve, second) or not reserve_lasts))
        ):
            targets = sorted([*targets, *empty_h]) if targets else empty_h
        if targets:
            if seen is not None and FIRST_HOUSE <= src < FIRST_FOUNDATION:
                # The repetition guard, inline: the layout after this move is the current hash
                # without the card at its old place, with it at its new one.
                keys = _ZOBRIST[card]
                lifted = hhash ^ keys[(src - FIRST_HOUSE) * _DEPTH + len(pile) - 1]
                for h in targets:
                    if (
                        h != src
                        and lifted ^ keys[(h - FIRST_HOUSE) * _DEPTH + len(p[h])] not in seen
                    ):
                        append((src, h))
            else:
                for h in targets:
                    if h != src:
                        append((src, h))
        if fkey in wanted_l:
            for i in wanted_l[fkey]:
                append((src, i))
    return steps


def destinations(state: GameState, seat: int, src: int) -> list[int]:
    """Every pile that accepts the top of `src` from `seat` (repetition not checked)."""
    return [d for s, d in _raw_steps(state, seat) if s == src]


def building_steps(state: GameState, seat: int) -> list[Step]:
    """Every move the building rules allow the seat now, repetitions excluded."""
    seen = state.seen
    # With only the current layout seen, a house-to-house move always changes it: no check.
    return _raw_steps(state, seat, seen if len(seen) >= 2 else None)


def apply_step(p: tuple[tuple[Card, ...], ...], src: int, dst: int) -> tuple[tuple[Card, ...], ...]:
    piles = list(p)
    card = piles[src][-1]
    piles[src] = piles[src][:-1]
    piles[dst] = piles[dst] + (card,)
    return tuple(piles)


def waste_turned_over(p: tuple[tuple[Card, ...], ...], seat: int) -> tuple[tuple[Card, ...], ...]:
    """`p` with `seat`'s waste turned over to become his hand (docs/spec/rules.md §4): the
    waste's bottom card is the hand's top, the next to turn. The engine's fold and every search
    that goes through a turn-over (the expert's, the evaluator's) use this one step."""
    piles = list(p)
    piles[HAND[seat]], piles[WASTE[seat]] = tuple(reversed(p[WASTE[seat]])), ()
    return tuple(piles)


def move_card(
    p: tuple[tuple[Card, ...], ...], hhash: int, src: int, dst: int
) -> tuple[tuple[tuple[Card, ...], ...], int]:
    """`apply_step` with the houses' hash updated (the evolve of every card move runs it)."""
    pile, target = p[src], p[dst]
    card = pile[-1]
    keys = _ZOBRIST[card]
    if FIRST_HOUSE <= src < FIRST_FOUNDATION:
        hhash ^= keys[(src - FIRST_HOUSE) * _DEPTH + len(pile) - 1]
    if FIRST_HOUSE <= dst < FIRST_FOUNDATION:
        hhash ^= keys[(dst - FIRST_HOUSE) * _DEPTH + len(target)]
    piles = list(p)
    piles[src] = pile[:-1]
    piles[dst] = target + (card,)
    return tuple(piles), hhash


def explain(state: GameState, seat: int, src: int, dst: int) -> RulesError:
    """The error for a move the building rules refuse (called only when it is not legal)."""
    p = state.p
    name_src, name_dst = ALL_PILES[src], ALL_PILES[dst]
    houses = _LAYOUT_HOUSES[state.ruleset.houses_per_player]
    if (src in HOUSE_SET and src not in houses) or (dst in HOUSE_SET and dst not in houses):
        return RulesError(
            "no such pile", "this layout has only two houses per player", "two_houses_layout"
        )
    if src not in sources(state, seat):
        if not p[src]:
            return RulesError("not available", f"{name_src} is empty", "pile_empty", pile=name_src)
        if src in FOUNDATIONS:
            return RulesError(
                "not available", "a foundation card never moves", "foundation_never_moves"
            )
        other = 1 - seat
        theirs = (RESERVE[other], SECOND_RESERVE[other], SHOWN[other], WASTE[other])
        if src in theirs or src in HANDS[3][other]:
            return RulesError(
                "not available", f"{name_src} is your opponent's", "opponents_pile", pile=name_src
            )
        if src in HANDS[3][seat]:
            return RulesError(
                "not available", "hand cards are face down: turn one first", "hand_face_down"
            )
        if src == WASTE[seat]:
            return RulesError(
                "not available",
                "your waste is not playable under these rules",
                "waste_not_playable",
            )
        return RulesError(
            "not available",
            f"{name_src} has no card you may move",
            "no_movable_card",
            pile=name_src,
        )
    card = p[src][-1]
    if dst in destinations(state, seat, src):
        return RulesError("repetition", "that move recreates a position already seen this turn")
    if src == dst:
        return RulesError("building", "a card cannot go back onto its own pile", "own_pile")
    if dst == WASTE[seat]:
        return RulesError(
            "building", "only a discard puts the hand card on your waste", "discard_only"
        )
    if dst in (RESERVE[seat], SECOND_RESERVE[seat], SHOWN[0], SHOWN[1]) or dst in HAND_SET:
        return RulesError(
            "building", f"no card may be put on {name_dst}", "no_card_on", pile=name_dst
        )
    if dst in FOUNDATIONS:
        if not p[dst]:
            return RulesError(
                "building",
                f"an empty foundation takes only an Ace, not {card.code}",
                "empty_foundation_ace",
                card=card.code,
            )
        top = p[dst][-1]
        if top.rank == 13:
            return RulesError(
                "building",
                f"nothing goes on a King ({name_dst} is complete)",
                "foundation_complete",
                pile=name_dst,
            )
        need = _next_name(top)
        return RulesError(
            "building",
            f"{name_dst} needs the {need}, not {card.code}",
            "foundation_needs",
            pile=name_dst,
            need=need,
            card=card.code,
        )
    if dst in houses:
        if not p[dst]:
            option = state.ruleset.empty_house
            if option == "king_only":
                return RulesError(
                    "building", "only a King may go to an empty house", "empty_house_king"
                )
            return RulesError(
                "building",
                "an empty house takes only your reserve card while the reserve lasts",
                "empty_house_reserve",
            )
        top = p[dst][-1]
        if top.red == card.red:
            return RulesError(
                "building",
                f"{card.code} on {top.code}: colours must alternate",
                "colours_alternate",
                card=card.code,
                top=top.code,
            )
        return RulesError(
            "building",
            f"{card.code} on {top.code}: a house goes down one rank",
            "house_down_one",
            card=card.code,
            top=top.code,
        )
    if dst in (RESERVE[1 - seat], SECOND_RESERVE[1 - seat], WASTE[1 - seat]):
        if not p[dst]:
            return RulesError(
                "building",
                f"{name_dst} is empty: nothing can be loaded on it",
                "load_empty",
                pile=name_dst,
            )
        top = p[dst][-1]
        return RulesError(
            "building",
            f"{card.code} on {top.code}: loading needs the same suit, one rank apart",
            "load_same_suit",
            card=card.code,
            top=top.code,
        )
    return RulesError(
        "building",
        f"{card.code} cannot go to {name_dst}",
        "cannot_go",
        card=card.code,
        pile=name_dst,
    )


def _next_name(top: Card) -> str:
    return RANKS[top.rank] + top.suit
