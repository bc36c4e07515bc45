"""The deal `sha256-fy/1` against docs/spec/records.md §1's test vectors, the layout and who
starts."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TypedDict

import pytest

from domain import deal
from domain.cards import Card
from domain.events import GameStarted
from domain.ruleset import FirstPlayer

ZERO = "0" * 64
COUNTING = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"


class Vector(TypedDict):
    commitment: str
    packs: tuple[str, str]
    cuts: list[tuple[int, int]]
    coin: int


VECTORS: dict[str, Vector] = {
    ZERO: {
        "commitment": "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925",
        "packs": (
            "JH 4S 9D KS 7S 6S 5H KD TD 3H AS 6D 9C 5S AD QC TS 2C 9H KH QH QS 8D 4C 8S 2H 9S 7H"
            " 2S 8H AC 2D JD 3D 5C KC 7C JS AH 4D TC 5D 6C 8C TH JC 4H 3C 7D 6H 3S QD",
            "QD TS 9S 2C QH 3H 5D TD 2H 5H KD AH 2S TC KS 9H 3S QS 3D 5S KC 9D AD JH AS 6D JS TH"
            " 5C 7D 8H QC 2D 6H 6S 4S AC 8S JD 4C KH 4D 3C 8D 9C 7S JC 8C 7H 4H 7C 6C",
        ),
        "cuts": [(1, 8), (3, 2), (7, 3)],
        "coin": 1,
    },
    COUNTING: {
        "commitment": "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd",
        "packs": (
            "AD TS 2S 6H QS 4C 9H TH 8S 9C JD 4H AC 8D 3S AH TC 2D 9S 3H 2C 6S 7D KH QC 4S QH KD"
            " 8H TD 7H 6C 5D KS 7S 6D JC 8C 5S JS 5C 2H JH 9D 5H AS 7C 3C 3D 4D QD KC",
            "JD TC KS 9S JS 2H 3S JH 6H 7C 5S 5H 5D TH 4C QS 9H 7H KC 7S TS TD 3D 5C QC 4S 2D 9D"
            " KD 3H AC 3C 2C 6C 8S 8D QH 6S 6D 8C KH 7D QD AS 9C 8H AD AH JC 4D 2S 4H",
        ),
        "cuts": [(5, 7), (5, 2), (4, 2)],
        "coin": 0,
    },
}


@dataclass(frozen=True)
class FakeRuleset:
    """Only the options the deal reads; the real Ruleset is tested where it lives."""

    first_player: str = "lower_reserve"
    reserve_size: int = 13
    houses_per_player: int = 4


@dataclass(frozen=True)
class RankOnly:
    rank: int


def codes(cards: list[Card]) -> str:
    return " ".join(card.code for card in cards)


@pytest.mark.parametrize("seed", list(VECTORS))
def test_commitment_matches_the_vector(seed: str) -> None:
    assert deal.commitment(seed) == VECTORS[seed]["commitment"]


@pytest.mark.parametrize("seed", list(VECTORS))
def test_packs_match_the_vector(seed: str) -> None:
    pack0, pack1 = deal.packs_from_seed(seed)
    assert (codes(pack0), codes(pack1)) == VECTORS[seed]["packs"]
    assert {card.owner for card in pack0} == {0} and {card.owner for card in pack1} == {1}


@pytest.mark.parametrize("seed", list(VECTORS))
def test_cut_ranks_match_the_vector(seed: str) -> None:
    assert [deal.cut_ranks(seed, k) for k in range(3)] == VECTORS[seed]["cuts"]


@pytest.mark.parametrize("seed", list(VECTORS))
def test_first_byte_coin_matches_the_vector(seed: str) -> None:
    assert deal.first_byte_coin(seed) == VECTORS[seed]["coin"]


def test_seed_in_upper_case_deals_the_same() -> None:
    assert deal.shuffled_codes(COUNTING.upper(), 1) == deal.shuffled_codes(COUNTING, 1)


@pytest.mark.parametrize("bad", ["", "00", "zz" * 32, "0" * 63, "0" * 66])
def test_bad_seed_is_refused(bad: str) -> None:
    with pytest.raises(deal.DealError):
        deal.commitment(bad)


@pytest.mark.parametrize("seed", [ZERO, COUNTING, "ab" * 32])
def test_each_pack_is_a_whole_pack(seed: str) -> None:
    for seat in (0, 1):
        assert sorted(deal.shuffled_codes(seed, seat)) == sorted(deal.FRESH_PACK)


def test_layout_follows_rules_section_2() -> None:
    pack0, pack1 = deal.packs_from_seed(ZERO)
    piles = deal.layout((pack0, pack1))
    assert codes(piles["R0"]) == codes(pack0[:13]) and piles["R0"][-1].code == "9C"
    # Houses: furthest from the reserve first: T3 gets D[13], T0 gets D[16].
    assert [piles[f"T{i}"][0].code for i in (3, 2, 1, 0)] == ["5S", "AD", "QC", "TS"]
    assert [piles[f"T{i}"][0].code for i in (7, 6, 5, 4)] == ["TC", "KS", "9H", "3S"]
    assert piles["H0"][-1].code == "2C" and len(piles["H0"]) == 35
    assert piles["H1"][-1].code == "QS" and len(piles["H1"]) == 35
    for name in ("X0", "X1", "W0", "W1", *(f"F{i}" for i in range(8))):
        assert piles[name] == []
    assert sum(len(pile) for pile in piles.values()) == 104


def test_layout_with_reserve_12_and_two_houses() -> None:
    pack0, pack1 = deal.packs_from_seed(ZERO)
    piles = deal.layout((pack0, pack1), reserve_size=12, houses_per_player=2)
    assert set(name for name in piles if name.startswith("T")) == {"T0", "T1", "T4", "T5"}
    assert piles["R0"][-1].code == "6D" and len(piles["R0"]) == 12
    assert piles["T1"][0].code == "9C" and piles["T0"][0].code == "5S"
    assert len(piles["H0"]) == 38 and piles["H0"][-1].code == "AD"
    assert sum(len(pile) for pile in piles.values()) == 104


def test_layout_refuses_a_short_pack() -> None:
    pack0, pack1 = deal.packs_from_seed(ZERO)
    with pytest.raises(deal.DealError):
        deal.layout((pack0[:51], pack1))


# --- who starts -------------------------------------------------------------------------------


def ranks_pack(
    reserve_top: int, houses_near_to_far: list[int], reserve_size: int = 13
) -> list[RankOnly]:
    """A rank-only pack whose reserve top and houses (T0 first) are the given ranks."""
    pack = [RankOnly(13)] * 52
    pack = list(pack)
    pack[reserve_size - 1] = RankOnly(reserve_top)
    h = len(houses_near_to_far)
    for i, rank in enumerate(houses_near_to_far):
        pack[reserve_size + h - 1 - i] = RankOnly(rank)
    return pack


def test_lower_reserve_top_starts() -> None:
    # ZERO: reserve tops 9C (seat 0) and 2S (seat 1).
    seat, reason = deal.first_player(FakeRuleset(), deal.packs_from_seed(ZERO), ZERO, 0, None)
    assert seat == 1
    assert "lower reserve top" in reason and "2S" in reason and "9C" in reason


def test_higher_reserve_top_starts() -> None:
    rules = FakeRuleset(first_player="higher_reserve")
    seat, reason = deal.first_player(rules, deal.packs_from_seed(ZERO), ZERO, 0, None)
    assert seat == 0 and "higher reserve top" in reason


@pytest.mark.parametrize("house", [0, 1, 2, 3])
def test_reserve_tie_goes_to_houses_from_the_reserve_outward(house: int) -> None:
    near0 = [7, 7, 7, 7]
    near1 = [7, 7, 7, 7]
    near0[house] = 4  # seat 0 lower at this house...
    if house < 3:
        near1[house + 1] = 2  # ...though seat 1 is lower further out, which must not count
    packs = (ranks_pack(5, near0), ranks_pack(5, near1))
    seat, reason = deal.first_player(FakeRuleset(), packs, None, 0, None)
    assert seat == 0 and f"T{house}/T{4 + house}" in reason
    seat, reason = deal.first_player(FakeRuleset("higher_reserve"), packs, None, 0, None)
    assert seat == 1 and f"T{house}/T{4 + house}" in reason


@pytest.mark.parametrize("seed,coin", [(ZERO, 1), (COUNTING, 0)])
def test_full_tie_goes_to_the_seed_coin(seed: str, coin: int) -> None:
    packs = (ranks_pack(5, [7, 8, 9, 10]), ranks_pack(5, [7, 8, 9, 10]))
    for option in ("lower_reserve", "higher_reserve"):
        seat, reason = deal.first_player(FakeRuleset(option), packs, seed, 0, None)
        assert seat == coin and "coin" in reason


def test_full_tie_with_explicit_packs_gives_seat_0() -> None:
    packs = (ranks_pack(5, [7, 8, 9, 10]), ranks_pack(5, [7, 8, 9, 10]))
    assert deal.first_player(FakeRuleset(), packs, None, 0, None)[0] == 0


def test_two_house_tie_compares_only_existing_houses() -> None:
    packs = (ranks_pack(5, [7, 8], 12), ranks_pack(5, [7, 3], 12))
    rules = FakeRuleset(reserve_size=12, houses_per_player=2)
    seat, reason = deal.first_player(rules, packs, None, 0, None)
    assert seat == 1 and "T1/T5" in reason


@pytest.mark.parametrize("seed,seat,round_", [(ZERO, 1, 1), (COUNTING, 1, 1)])
def test_high_cut(seed: str, seat: int, round_: int) -> None:
    rules = FakeRuleset(first_player="high_cut")
    got, reason = deal.first_player(rules, deal.packs_from_seed(seed), seed, 0, None)
    assert got == seat and f"round {round_}" in reason


def test_high_cut_goes_to_the_next_round_on_equal_ranks() -> None:
    # Search a seed whose first round ties, then check the verdict comes from a later round.
    for n in range(200):
        seed = f"{n:064x}"
        cut0, cut1 = deal.cut_ranks(seed, 0)
        if cut0 == cut1:
            break
    else:
        pytest.fail("no tying seed among 200")
    seat, reason = deal.first_player(
        FakeRuleset("high_cut"), deal.packs_from_seed(seed), seed, 0, None
    )
    k = 1
    while deal.cut_ranks(seed, k)[0] == deal.cut_ranks(seed, k)[1]:
        k += 1
    cut0, cut1 = deal.cut_ranks(seed, k)
    assert seat == (0 if cut0 > cut1 else 1) and f"round {k + 1}" in reason


def test_high_cut_without_seed_gives_seat_0() -> None:
    packs = deal.packs_from_seed(ZERO)
    assert deal.first_player(FakeRuleset("high_cut"), packs, None, 0, None)[0] == 0


@pytest.mark.parametrize("previous", [0, 1])
def test_alternate_gives_the_other_seat(previous: int) -> None:
    rules = FakeRuleset(first_player="alternate")
    seat, reason = deal.first_player(rules, deal.packs_from_seed(ZERO), ZERO, 3, previous)
    assert seat == 1 - previous and "alternate" in reason


def test_alternate_first_game_is_by_lower_reserve() -> None:
    rules = FakeRuleset(first_player="alternate")
    seat, reason = deal.first_player(rules, deal.packs_from_seed(ZERO), ZERO, 0, None)
    assert seat == 1 and "lower reserve top" in reason


def test_unknown_first_player_option_is_refused() -> None:
    with pytest.raises(deal.DealError):
        deal.first_player(FakeRuleset("youngest"), deal.packs_from_seed(ZERO), ZERO, 0, None)


# --- the `crapette deal` command ---------------------------------------------------------------


def run_deal(*args: str) -> tuple[int, str]:
    from click.testing import CliRunner

    from server.cli.deal import deal as deal_command

    result = CliRunner().invoke(deal_command, list(args))
    return result.exit_code, result.output


@pytest.mark.parametrize("seed", list(VECTORS))
def test_deal_command_json_matches_the_vectors(seed: str) -> None:
    code, output = run_deal("--seed", seed, "--json")
    assert code == 0, output
    data = json.loads(output)
    assert [" ".join(pack) for pack in data["packs"]] == list(VECTORS[seed]["packs"])
    assert data["commitment"] == VECTORS[seed]["commitment"]
    assert data["first_player"] in (0, 1) and data["first_player_reason"]
    assert sum(len(cards) for cards in data["layout"].values()) == 104
    assert data["layout"]["R0"][-1] == data["packs"][0][12] + "/0"


def test_deal_command_zero_seed_starts_seat_1_by_lower_reserve() -> None:
    data = json.loads(run_deal("--seed", ZERO, "--json")[1])
    assert data["first_player"] == 1 and "2S" in data["first_player_reason"]


def test_deal_command_preset_changes_the_layout_and_first_player() -> None:
    data = json.loads(run_deal("--seed", ZERO, "--preset", "french", "--json")[1])
    assert len(data["layout"]["R0"]) == 13 and "T2" not in data["layout"]
    assert data["first_player"] == 1 and "cut" in data["first_player_reason"]
    data = json.loads(run_deal("--seed", ZERO, "--preset", "finnish", "--json")[1])
    assert len(data["layout"]["R0"]) == 12


def test_deal_command_text_shows_packs_layout_and_first_player() -> None:
    code, output = run_deal("--seed", COUNTING)
    assert code == 0, output
    assert VECTORS[COUNTING]["packs"][0][:26] in output
    assert "first player: seat" in output and "R0" in output and "T7" in output


def test_deal_command_refuses_a_bad_seed() -> None:
    code, output = run_deal("--seed", "xyz")
    assert code != 0 and "seed" in output.lower()


# --- who starts, in a real game ---------------------------------------------------------------


@pytest.mark.parametrize(
    "option,seat,word",
    [("lower_reserve", 1, "lower"), ("higher_reserve", 0, "higher"), ("high_cut", 1, "cut")],
)
def test_game_started_records_first_player_and_reason(
    option: FirstPlayer, seat: int, word: str
) -> None:
    from domain import Ruleset
    from domain.commands import StartGame, StartMatch
    from domain.engine import decide_and_fold

    ruleset = Ruleset(first_player=option)
    _, match = decide_and_fold(None, StartMatch("m", ruleset, ("a", "b"), 0))
    events, state = decide_and_fold(match, StartGame(ZERO, None, 0))
    assert isinstance(events[0], GameStarted)
    assert events[0].first_player == seat and word in events[0].first_player_reason
    assert state.game is not None and state.game.to_move == seat


def test_game_from_explicit_packs_with_a_full_tie_starts_seat_0() -> None:
    from domain import Card, Ruleset
    from domain.commands import StartGame, StartMatch
    from domain.engine import decide_and_fold

    fresh = [list(Card.parse(code, owner=seat) for code in deal.FRESH_PACK) for seat in (0, 1)]
    _, match = decide_and_fold(None, StartMatch("m", Ruleset(), ("a", "b"), 0))
    events, _ = decide_and_fold(match, StartGame(None, (fresh[0], fresh[1]), 0))
    assert isinstance(events[0], GameStarted)
    assert events[0].first_player == 0 and events[0].seed is None
