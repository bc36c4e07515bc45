"""`crapette deal` prints the layout the engine deals, second reserves and
three hands included (rules.md §10)."""

from __future__ import annotations

from server.cli.deal import deal_summary

# sha256("italian two reserves 0"): the seed of the italian-two-reserves golden record.
SEED = "943c7d37f6d736a8baa788595ccd267b3f31e00ab3bb28892bd919dda454f1d0"


def test_two_reserves_are_dealt_alternately_and_printed() -> None:
    summary = deal_summary(SEED, "italian-two-reserves")
    layout = summary["layout"]
    pack = summary["packs"][0]
    assert [card.split("/")[0] for card in layout["R0"]] == pack[0:13:2]
    assert [card.split("/")[0] for card in layout["Q0"]] == pack[1:13:2]
    assert list(layout)[:3] == ["R0", "Q0", "H0"]
    assert summary["first_player_reason"] == "lower R top: 7H against QH"


def test_one_reserve_prints_no_q() -> None:
    layout = deal_summary(SEED, "italian")["layout"]
    assert "Q0" not in layout and len(layout["R0"]) == 13


def test_three_hands_are_dealt_in_turn_and_printed() -> None:
    summary = deal_summary(SEED, "italian-three-hands")
    layout = summary["layout"]
    rest = summary["packs"][1][17:]  # after 13 reserve cards and 4 house cards
    for offset, name in enumerate(("H1", "I1", "J1")):
        # Bottom to top: the hand's first card, D[17 + offset], lies on top.
        assert [card.split("/")[0] for card in layout[name]] == rest[offset::3][::-1]
    assert [len(layout[name]) for name in ("H0", "I0", "J0")] == [12, 12, 11]
    assert list(layout)[:4] == ["R0", "H0", "I0", "J0"]
    assert "I0" not in deal_summary(SEED, "italian")["layout"]
