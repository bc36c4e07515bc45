"""The strengths are ordered: sharp beats steady and steady beats random by a clear margin.

A fixed set of 20 deals is played twice per pairing, the bots swapping seats, so the deal and
the first move favour nobody: 40 games. The stated threshold for "clearly stronger" is 70% of the
40 games for sharp against steady (28 wins; if the two were equally strong, 28 or more wins would
happen with probability 0.8%) and 85% for steady against random (34 wins; p < 0.001%). Seeds are
fixed, so the test is deterministic; the thresholds say how far from a coin toss the results are.
(Measured when written: sharp 35/40 against steady, steady 40/40 against random.)
"""

from __future__ import annotations

import pytest

from domain import Ruleset
from domain.bots import make_bot
from domain.bots.arena import derive_seed, play_match

DEALS = 20


def wins_of_first(strong: str, weak: str, preset: str = "classic") -> tuple[int, int]:
    """Games won by `strong` over `DEALS` deals played from both seats; and games played."""
    ruleset = Ruleset.preset(preset)
    won = played = 0
    for deal in range(DEALS):
        seed = derive_seed("strength", preset, deal)
        for strong_seat in (0, 1):
            bots = [make_bot(weak, seed=deal), make_bot(weak, seed=deal)]
            bots[strong_seat] = make_bot(strong, seed=deal)
            report = play_match(
                ruleset,
                (bots[0], bots[1]),
                f"{strong}-{weak}-{deal}-{strong_seat}",
                iter([seed]),
                1,
                check_every_event=False,
            )
            played += 1
            won += report.games[0].winner == strong_seat
    return won, played


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_sharp_beats_steady_clearly() -> None:
    won, played = wins_of_first("sharp", "steady")
    assert played == 2 * DEALS
    assert won >= 28, f"sharp won only {won} of {played} games against steady"


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_steady_beats_random_clearly() -> None:
    won, played = wins_of_first("steady", "random")
    assert played == 2 * DEALS
    assert won >= 34, f"steady won only {won} of {played} games against random"
