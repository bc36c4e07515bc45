"""Make the golden records of this directory: `python3 tests/data/records/generate.py`.

Each game is driven through the engine from a chosen deal (explicit packs or a fixed seed) with a
scripted story; the JSON and text forms are written side by side. The files were then read and
checked by hand (see README.md here); tests re-verify them with the engine and never rewrite them.
Run this only when the record format or the rules change on purpose, and check the diff.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

import domain  # noqa: E402
from domain.engine_match import EngineMatch, obedient_action, play_obediently  # noqa: E402
from records.export import record_from_events  # noqa: E402
from records.text import to_text  # noqa: E402

SPADES = [r + "S" for r in "A23456789TJQK"]
HEARTS = [r + "H" for r in "A23456789TJQK"]
DIAMONDS = [r + "D" for r in "A23456789TJQK"]
CLUBS = [r + "C" for r in "A23456789TJQK"]

# Seat 0's pack, top first: reserve AS..KS with AS on top (docs/spec/rules.md §2: D[12] ends on
# top), houses AH 2H 3H 4H, then a hand that turns 6H, 5H, the diamonds, the clubs, and 7H..KH last.
WIN_PACK_0 = SPADES[::-1] + ["AH", "2H", "3H", "4H"] + ["6H", "5H"] + DIAMONDS + CLUBS + HEARTS[6:]
# Seat 1's pack: every card seat 1 ever shows is harmless (spades after seat 0 finished them,
# hearts from 7H while seat 0's hearts wait at 5H, a 2D before any diamond is out).
_S1_SPADES = SPADES[1:]  # 2S..KS
WIN_PACK_1 = (
    ["AS", "AH", "AD", "AC", "5H", "6H", "3D", "4D"]  # reserve bottom, never uncovered
    + _S1_SPADES[:5]  # reserve top five (6S on top)
    + _S1_SPADES[5:9]  # houses T7 T6 T5 T4
    + ["7H", "8H", "9H", "TH", "JH", "QH", "KH", "2D"]  # the eight hand cards seat 1 turns
    + _S1_SPADES[9:]
    + ["2H", "3H", "4H"]
    + DIAMONDS[4:]
    + CLUBS[1:]
)
assert sorted(WIN_PACK_0) == sorted(WIN_PACK_1) == sorted(SPADES + HEARTS + DIAMONDS + CLUBS)

# No card can ever reach a foundation: every Ace lies at the bottom of a reserve under a King
# (which fits no house), so both players only turn and discard until both have gone through their
# whole hands without progress.
_NO_ACES = [c for c in SPADES + HEARTS + DIAMONDS + CLUBS if c[0] != "A" and c not in ("KS", "KH")]
STALE_PACK_0 = ["AS", "AH", "AD", "AC"] + _NO_ACES[:8] + ["KS"] + _NO_ACES[8:] + ["KH"]
STALE_PACK_1 = ["AS", "AH", "AD", "AC"] + _NO_ACES[-8:] + ["KH"] + _NO_ACES[:-8] + ["KS"]
assert sorted(STALE_PACK_0) == sorted(STALE_PACK_1) == sorted(SPADES + HEARTS + DIAMONDS + CLUBS)

SEED = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
# sha256("italian two reserves 0")
TWO_RESERVES_SEED = "943c7d37f6d736a8baa788595ccd267b3f31e00ab3bb28892bd919dda454f1d0"


def _play_out(table: EngineMatch, limit: int = 400) -> None:
    play_obediently(table, limit)


def win_with_recycled_waste() -> EngineMatch:
    """Seat 0 plays every card to the foundations, recycling its waste once, and wins."""
    table = EngineMatch("classic", match_id="golden-win")
    table.deal(packs=(WIN_PACK_0, WIN_PACK_1))
    _play_out(table)
    return table


def calls_and_resignation() -> EngineMatch:
    """Seat 0 turns a hand card with AS on its reserve: seat 1 calls (right). Then seat 1 builds
    AH; seat 0 calls that (wrong) and resigns."""
    table = EngineMatch("classic", match_id="golden-calls")
    table.deal(packs=(WIN_PACK_0, WIN_PACK_1))
    table.say(0, "turn")
    table.say(1, "crapette")
    play_obediently(table, 1)
    table.say(0, "crapette")
    table.say(0, "resign")
    return table


def timeout_and_agreed_stalemate() -> EngineMatch:
    """Finnish rules (10 s a move): a few moves, seat to move lets the clock run out, then a
    stalemate is offered and accepted."""
    table = EngineMatch("finnish", match_id="golden-finnish")
    table.deal(seed=SEED)
    play_obediently(table, 6)
    table.act(domain.TimeOut(table.game.to_move), after_ms=10_500)
    play_obediently(table, 2)
    offer = table.game.to_move
    table.act(domain.OfferDraw(offer))
    table.act(domain.AcceptDraw(1 - offer))
    return table


def stalemate() -> EngineMatch:
    """Both players turn and discard their whole hands, recycle, and the game is stalemated."""
    table = EngineMatch("classic", match_id="golden-stalemate")
    table.deal(packs=(STALE_PACK_0, STALE_PACK_1))
    _play_out(table)
    return table


# The deal of issue 17's report: a multi-card move written as one action.
SHORTCUT_SEED = "d76d4330f1446beab0c11fdecb91ce375bc8fbbcbde5c0994164d8399f767c45"


def multi_card_move() -> EngineMatch:
    """Lenient classic: seat 1 turns 2H, moves 2D onto 3S (T6-T0) and JH into the emptied T6
    (T2-T6), then 3S with 2D onto 4D through the empty T2 (`T0-T3 3S`), and resigns."""
    table = EngineMatch("classic", match_id="golden-multi-card", enforcement="lenient")
    table.deal(seed=SHORTCUT_SEED)
    for text in ("turn", "T6-T0", "T2-T6", "T0-T3 3S"):
        table.say(1, text)
    table.act(domain.Resign(1))
    return table


def written_as_one_action(first: int, count: int) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The record with the `count` single moves from action `first` (0-based) of its first game
    written as the one shortcut they stand for: their own `from` and the last `to`, and the card
    of the step that went there from that `from` (the bottom card of the moved sequence)."""

    def fold(record: dict[str, Any]) -> dict[str, Any]:
        actions = record["games"][0]["actions"]
        steps = actions[first : first + count]
        src, dst = steps[0]["from"], steps[-1]["to"]
        (card,) = [s["card"] for s in steps if (s["from"], s["to"]) == (src, dst)]
        shortcut = {"seat": steps[0]["seat"], "do": "move", "from": src, "to": dst, "card": card}
        actions[first : first + count] = [{**shortcut, "ms": steps[0]["ms"]}]
        return record

    return fold


# sha256("italian three hands 0")
THREE_HANDS_SEED = "0ce4e98e721857512b95d494c972144d437c4171b0a2dd1a3d6b5aac257fe158"


def three_hands() -> EngineMatch:
    """italian-three-hands (rules.md §10): obedient play in which the turns name their hand,
    J first, then I, then leave it to the default order; then the player to move resigns."""
    table = EngineMatch("italian-three-hands", match_id="golden-italian-three-hands")
    table.deal(seed=THREE_HANDS_SEED)
    named = iter("JI")
    for _ in range(14):
        seat = table.game.to_move
        action = obedient_action(table.state, seat)
        assert action is not None
        if isinstance(action, domain.Turn):
            kind = next(named, None)
            action = domain.Turn(seat, f"{kind}{seat}") if kind else action
        table.act(action)
    table.act(domain.Resign(table.game.to_move))
    return table


def preset_game(preset: str, actions: int = 12, seed: str = SEED) -> Callable[[], EngineMatch]:
    def make() -> EngineMatch:
        table = EngineMatch(preset, match_id=f"golden-{preset}")
        table.deal(seed=seed)
        play_obediently(table, actions)
        table.act(domain.Resign(table.game.to_move))
        return table

    make.__doc__ = f"A short {preset} game from seed {seed[:8]}…, then a resignation."
    return make


def rotation_session() -> EngineMatch:
    """italian-four to two games won (docs/spec/rules.md §10, winner_out): Cid waits from the
    start, Dan joins during game 2 and leaves before game 4; a stalemate moves nobody."""
    table = EngineMatch("italian-four", match_id="golden-italian-four", match="wins:2")
    table.join("Cid")
    for game, (seed, end) in enumerate(
        [(SEED, "Bob"), (TWO_RESERVES_SEED, None), (SHORTCUT_SEED, "Bob"), (SEED, "Bob")]
    ):
        table.deal(seed=seed)
        play_obediently(table, 3)
        if game == 1:
            table.join("Dan")
        play_obediently(table, 6)
        if end is None:
            table.act(domain.OfferDraw(table.game.to_move))
            table.act(domain.AcceptDraw(1 - table.game.to_move))
        else:
            table.act(domain.Resign(table.state.players.index(end)))
        if game == 2:
            table.leave("Dan")
    return table


GOLDENS: dict[str, Callable[[], EngineMatch]] = {
    "classic-win-recycle": win_with_recycled_waste,
    "classic-calls-resign": calls_and_resignation,
    "classic-stalemate": stalemate,
    "finnish-timeout-stalemate": timeout_and_agreed_stalemate,
    "g4a-resign": preset_game("g4a"),
    "danish-resign": preset_game("danish"),
    "italian-resign": preset_game("italian"),
    "french-resign": preset_game("french"),
    "beginner-resign": preset_game("beginner"),
    # A seed whose obedient play moves a Q card early (Q0-T6 at the 6th action).
    "italian-two-reserves-resign": preset_game("italian-two-reserves", 12, TWO_RESERVES_SEED),
    "classic-multi-card-move": multi_card_move,
    "italian-three-hands-resign": three_hands,
    "italian-four-session": rotation_session,
}
# Goldens whose exported record is then rewritten as a person or another program may write it.
REWRITES: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "classic-multi-card-move": written_as_one_action(3, 3),
}


def unchanged(record: dict[str, Any]) -> dict[str, Any]:
    return record


def main() -> None:
    for name, make in GOLDENS.items():
        record = record_from_events(make().events)
        record = REWRITES.get(name, unchanged)(record)
        (HERE / f"{name}.json").write_text(
            json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        (HERE / f"{name}.txt").write_text(to_text(record), encoding="utf-8")
        print(name, len(record["games"][0]["actions"]), "actions")


if __name__ == "__main__":
    main()
