"""The judge's engine (domain/evaluator/judging.py, issue 37): one engine plays and judges, and
it reads what the seat could see only."""

from __future__ import annotations

import random

import domain
from domain.bots import make_bot
from domain.bots.arena import derive_seed
from domain.evaluator import scale
from domain.evaluator.judging import Watch, same
from domain.evaluator.sampling import Sampler, as_match

START = 1_764_000_000_000


def _game(
    pair: tuple[str, str], seed: str, most: int
) -> list[tuple[domain.MatchState, int, domain.Action]]:
    """The positions of one classic game between the bots `pair` (every action, calls too),
    each with the seat that acted and its action."""
    rules = domain.Ruleset.preset("classic")
    _, state = domain.decide_and_fold(None, domain.StartMatch("j", rules, ("a", "b"), START))
    _, state = domain.decide_and_fold(state, domain.StartGame(derive_seed(seed, 0), None, START))
    bots = [make_bot(name, seed=f"{seed}/{s}") for s, name in enumerate(pair)]
    steps: list[tuple[domain.MatchState, int, domain.Action]] = []
    now = START
    for _ in range(most):
        game = state.game
        assert game is not None
        if game.over:
            break
        mover = game.to_move
        chosen: domain.Action | None = None
        who = mover
        for who in (1 - mover, mover):
            chosen = bots[who].choose(domain.view(state, who))
            if chosen is not None:
                break
        if chosen is None:
            break
        steps.append((state, who, chosen))
        now += 100
        _, state = domain.decide_and_fold(state, domain.Act(chosen, now))
    return steps


def test_the_judge_s_best_is_the_expert_s_own_choice_in_the_same_view() -> None:
    """The watch is shown every position, as the expert is; at each of the expert's decisions
    the judge's best candidate is the action the expert played there."""
    for pair, seat in ((("expert", "sharp"), 0), (("steady", "expert"), 1)):
        steps = _game(pair, f"judge-best/{seat}", 700)
        watch = Watch()
        decisions = 0
        for state, who, action in steps:
            watch.see(state)
            if who == seat and isinstance(action, domain.Move | domain.Turn | domain.Discard):
                ranked = watch.rank(state, seat)
                assert ranked, state.version
                assert same(ranked[0].action, action), (state.version, ranked[0], action)
                assert ranked[0].chance == max(c.chance for c in ranked[:1])
                watch.played(state, action)
                decisions += 1
        assert decisions > 60


def test_hidden_cards_are_never_read_a_reshuffle_of_them_changes_nothing() -> None:
    """At positions of a game, the cards the mover could not see (his remembered hands kept)
    are shuffled anew: the ranking, the chances and the playouts' values are the same."""
    steps = _game(("sharp", "steady"), "judge-hidden", 260)
    watch = Watch()
    rng = random.Random(37)
    checked = 0
    for k, (state, who, action) in enumerate(steps):
        watch.see(state)
        game = state.game
        assert game is not None
        if k % 40 != 20 or who != game.to_move or isinstance(action, domain.Call):
            continue
        seat = game.to_move
        other = as_match(state, Sampler(state, seat, watch.known(seat)).draw(rng))
        assert other.game is not None and other.game.p != game.p  # really other cards
        one, two = watch.fork(), watch.fork()
        ranked = one.rank(state, seat)
        assert ranked == two.rank(other, seat)
        pair = [ranked[0].action, ranked[-1].action]
        assert one.check(state, seat, pair, 2, 5) == two.check(other, seat, pair, 2, 5)
        checked += 1
    assert checked >= 4


def test_the_scale_is_monotone_and_keeps_won_and_lost_lines() -> None:
    a, _ = scale.coefficients()
    assert a > 0
    figures = [scale.chance(s, 0.0, 0.3) for s in (-200.0, -50.0, 0.0, 50.0, 200.0)]
    assert figures == sorted(figures) and figures[2] == scale.chance(0.0, 0.0, 0.3)
    assert scale.chance(10_000.0, 0.0, 0.3) == 1.0
    assert scale.chance(-10_000.0, 0.0, 0.3) == 0.0


def test_the_position_figure_is_the_anchor_recalibrated() -> None:
    """`scale.position_logit` is the anchor's logit through the fitted Platt map (p, q)."""
    steps = _game(("expert", "sharp"), "judge-recalibrated", 30)
    table = steps[20][0].game
    assert table is not None
    a, b = scale.coefficients()
    kept = scale.recalibration()
    try:
        scale.use(a, b, (2.0, -0.5))
        assert scale.position_logit(table) == 2.0 * scale.anchor_logit(table) - 0.5
        scale.use(a, b)
        assert scale.position_logit(table) == scale.anchor_logit(table)
    finally:
        scale.use(a, b, kept)


def test_playouts_use_the_same_deals_for_every_action_and_value_at_the_horizon() -> None:
    steps = _game(("expert", "expert"), "judge-playout", 120)
    watch = Watch()
    for state, _, _ in steps[:100]:
        watch.see(state)
    state = steps[100][0]
    game = state.game
    assert game is not None
    seat = game.to_move
    ranked = watch.rank(state, seat)
    best = ranked[0].action
    values = watch.check(state, seat, [best, best], 3, 1)
    assert values[0] == values[1]  # the same action on the same deals: the same values
    assert all(0.0 <= v <= 1.0 for v in values[0])
    assert watch.check(state, seat, [best], 3, 1) == values[:1]  # deterministic
