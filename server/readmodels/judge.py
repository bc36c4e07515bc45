"""How well a match was played: the win chance at every decision of a verified record and a
judgement of each one (docs/records.md § How well it was played, docs/evaluator.md § The judge).
`crapette analyse`, `crapette verify --analysis` and the server's analysis workers
(server/readmodels/analysis_build.py) all call `analyse_record`.

A record as a library: this module reads a record (verified by `records.verify`, never
trusted) and asks the judge's engine (`domain.evaluator.judging`, issue 37) for chances; it
holds no rules and touches no store.

**One engine plays and judges.** The strongest bot (`expert`) watches the game from each seat
(`Watch`: every position, in order, so it remembers the hands that seat could remember) and
ranks each decision's candidates with its own search: the best action is the one that bot
plays in the same view. The search's scores become the mover's win chances by a map fitted on
game outcomes (`domain.evaluator.scale`). A decision's `win_chance` is `{"before", "after",
"best"}`: the best candidate's chance (also the position's), the played one's, the best's.

**A label is checked before it is shown.** A decision whose played move the search puts
`FLAG_FROM` or more under the best is *flagged*; the most flagged of them (up to
`CHECKS[depth].most`, the largest drops first) are checked by playouts: the best and the played
move, each played on from the same `deals` shuffles of the cards the mover could not see
(keeping the hands he remembers) by the strongest bot in both seats to the start of the mover's
next turn (`judging.HORIZON_TURNS`), valued there by the same map. The playouts decide: the
measured drop (best's mean less played's) gives the label when it stands `CONFIRM_SE` standard
errors clear of zero, else the decision is `good`. The JSON keeps, per checked decision,
`check: {"deals", "best", "played", "drop", "se"}`; a flagged decision left unchecked (past
the cap) is `good` with `"unchecked": true`: no label is shown unchecked.

**Faults and calls.** A priority fault in `call` mode is scored as called (its remedy played,
the turn lost) among the candidates, so a fault costs what the turn lost costs. A missed call
(a fault of the opponent nobody called, domain/analysis.py) and a wrong call (a call on an
action that broke no rule) are judged too: the chance the call would have given (or the chance
before the wrong call) against the chance after; each costs at least `CALL_COST_AT_LEAST`
(a call is a claim about the rules, not an estimate: a wrong one is a misjudgement even where
the rules give it no penalty).

**Accuracy.** A decision's `cost` is its drop as it would be at an even position
(`even_drop`: the drop in logit over 4, a chance above `WON_FROM` counted as `WON_FROM`), the
checked drop where playouts ran, else the search's; its `stake` is, in the same units, what
lay between its best and its worst candidate (at least its cost). A decision `counts` when
its stake is `COUNTS_FROM` or more: most decisions of a game are forced or have one sensible
move; every fault and call counts. A counted decision's accuracy is the share of its stake
the move kept, a drop within `FREE_WITHIN` costing nothing (but a fault's: `move_accuracy`);
a seat's accuracy is the mean over its counted decisions. docs/evaluator.md § Accuracy has
the measurement behind it.

Deterministic: the same record, depth and seed give the same figures (the playouts' shuffles
are seeded by `seed` and the position)."""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import domain
from domain.analysis import Fault, analyse
from records.decisions import action_of
from records.verify import Verified, verify_record

DEPTHS = ("quick", "normal", "deep")
JUDGEMENTS = ("best", "good", "inaccuracy", "mistake", "blunder")
# The drop in win chance (0-1, the best move's chance less the played move's, as the playouts
# measure it) from which a decision is judged so, worst first: half of lichess's 0.1/0.2/0.3
# and less, a Crapette move's drops being smaller (a card left in one's reserve is some 0.04).
# docs/evaluator.md § Thresholds has the measurement they rest on. Under BEST_WITHIN: `best`.
THRESHOLDS = ((0.2, "blunder"), (0.1, "mistake"), (0.05, "inaccuracy"))
BEST_WITHIN = 0.02
# The search's drop from which a decision is checked by playouts (a label is never shown
# unchecked): under the lowest threshold, since the search may under-state a drop.
FLAG_FROM = 0.03
# A measured drop gives a label only this many standard errors clear of zero.
CONFIRM_SE = 2.0
# A decision counts for accuracy when its stake (its best candidate less its worst, in
# even-position units: `even_drop`) is this much: the drop from which a move is flagged.
COUNTS_FROM = FLAG_FROM
# A drop (in the same units) within this of the best costs no accuracy: the margin within which
# a move is judged `best`. docs/evaluator.md § Accuracy, the measurement behind both.
FREE_WITHIN = BEST_WITHIN
# A chance above this counts as this in `even_drop`: the logit amplifies a won position's small
# drops as much as a lost one's, and a winner (the sharp bot against the steady one) who lets
# 0.02 of a 95 % game go was scored as inaccurate as his loser (docs/evaluator.md § Accuracy).
WON_FROM = 0.8
# A missed or a wrong call costs at least this: it is labelled an inaccuracy at least.
CALL_COST_AT_LEAST = THRESHOLDS[-1][0]
# Win chances are given to this many decimals.
DIGITS = 4
# The judge's output: 1 was the value-function judge of issue 26; 2 the first judge of issue 37
# (accuracy on lichess's curve of the cost); 3 accuracy as the share of each decision's stake
# kept, a decision's `stake` in the JSON; 4 the same, a chance above WON_FROM counted as WON_FROM
# in a cost and a stake.
FORMAT_VERSION = 4


@dataclass(frozen=True)
class Checks:
    """The playouts of a depth: `deals` shuffles per checked decision, at most `most` checked
    decisions per record (docs/evaluator.md § Depths and time: what one analysis worker can
    afford)."""

    deals: int
    most: int


CHECKS = {"quick": Checks(4, 4), "normal": Checks(16, 24), "deep": Checks(32, 80)}

Progress = Callable[[int, int], None]


class Candidate(Protocol):
    """A ranked action (`domain.evaluator.judging.Candidate`)."""

    @property
    def action(self) -> domain.Action: ...

    @property
    def chance(self) -> float: ...


class Watcher(Protocol):
    """What the judge needs of `domain.evaluator.judging.Watch` (docs/evaluator.md)."""

    def see(self, state: domain.MatchState) -> None: ...

    def rank(self, state: domain.MatchState, seat: int) -> Sequence[Candidate]: ...

    def played(self, state: domain.MatchState, action: domain.Action) -> None: ...

    def chance(self, state: domain.MatchState, seat: int) -> float: ...

    def fork(self) -> Watcher: ...

    def check(
        self,
        state: domain.MatchState,
        seat: int,
        actions: Sequence[domain.Action],
        deals: int,
        seed: int,
    ) -> list[list[float]]: ...


def evaluator() -> Callable[[], Watcher]:
    """What makes the judge's watch (`domain.evaluator.judging.Watch`: imported when first asked
    for, so that a record can be verified without it; tests put a stand-in here)."""
    module = importlib.import_module("domain.evaluator.judging")
    make: Callable[[], Watcher] = module.Watch
    return make


def same(a: domain.Action, b: domain.Action) -> bool:
    """Two play actions alike for the judge: a move whatever card it names, a turn whatever
    hand (`domain.evaluator.judging.same`)."""
    if isinstance(a, domain.Move) and isinstance(b, domain.Move):
        return (a.seat, a.src, a.dst) == (b.seat, b.src, b.dst)
    if isinstance(a, domain.Turn) and isinstance(b, domain.Turn):
        return a.seat == b.seat
    return a == b


class JudgeError(ValueError):
    """A request the judge cannot answer (an unknown depth)."""


def judgement(drop: float, same_move: bool = False) -> str:
    """The judgement of a decision that threw away `drop` of its seat's win chance
    (`same_move`: the move played is the best one found)."""
    if same_move or drop < BEST_WITHIN:
        return "best"
    return next((name for limit, name in THRESHOLDS if drop >= limit), "good")


def even_drop(best: float, after: float, won: float = WON_FROM) -> float:
    """A drop in win chance (from `best` to `after`) as it would be at an even position: the
    drop in logit over 4 (the slope of the logistic curve at 50 %). A move that throws away as
    much of the game's balance costs the same whether the game stands at 50 % or at 5 %: in a
    game already lost every drop in chance is tiny, however bad the move. A chance above `won`
    (`WON_FROM`) counts as `won`: a won position's margin is the winner's to spend, only what a
    move takes under it costs (docs/evaluator.md § Accuracy)."""
    return max(0.0, (_logit(min(best, won)) - _logit(min(after, won))) / 4.0)


def _logit(p: float) -> float:
    p = min(max(p, 0.005), 0.995)
    return math.log(p / (1.0 - p))


def move_accuracy(cost: float, stake: float, free: float = FREE_WITHIN) -> float:
    """One decision's accuracy (0-100): the share of its `stake` (what lay between its best
    and its worst candidate) that a move costing `cost` kept, a cost within `free` being
    none: 100 for the best or near it, 0 for the worst (or a missed or wrong call). `free` is
    0 for a priority fault: its cost is the rule's, not the search's margin."""
    lost = max(0.0, cost - free)
    room = stake - free
    if lost <= 0.0 or room <= 0.0:
        return 100.0
    return 100.0 * (1.0 - min(1.0, lost / room))


def drop_of(decision: dict[str, Any]) -> float:
    """What a decision cost its seat (what accuracy weighs): its `cost`, else the drop of its
    win chances."""
    if "cost" in decision:
        return max(0.0, float(decision["cost"]))
    chance = decision["win_chance"]
    return max(0.0, float(chance["best"]) - float(chance["after"]))


def stake_of(decision: dict[str, Any]) -> float:
    """What was at stake in a decision: its `stake` (never under its cost), else its cost."""
    return max(float(decision.get("stake", 0.0)), drop_of(decision))


def seat_summary(decisions: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """A seat's accuracy (the mean of its counted decisions' accuracies, 100 with none), how
    many of each judgement, and how many decisions counted."""
    counts = dict.fromkeys(JUDGEMENTS, 0)
    accuracies: list[float] = []
    for d in decisions:
        counts[d["judgement"]] += 1
        if d.get("counted", True):
            free = 0.0 if d.get("faulty") else FREE_WITHIN
            accuracies.append(move_accuracy(drop_of(d), stake_of(d), free))
    accuracy = sum(accuracies) / len(accuracies) if accuracies else 100.0
    return {"accuracy": round(accuracy, 1), "counts": counts, "counted": len(accuracies)}


def action_json(action: domain.Action) -> dict[str, Any]:
    return {**action.to_json(), "text": action.notation()}


def candidate_key(action: dict[str, Any]) -> str:
    """The key of an action (in its JSON form) in a decision's `candidates`: a move's piles
    ("R0-F2", whatever card it names), else what it does ("turn", whatever hand)."""
    if action.get("do") == "move":
        return f"{action.get('from')}-{action.get('to')}"
    return str(action.get("do"))


def action_key(action: domain.Action) -> tuple[Any, ...]:
    """An action whatever card it names (the engine's listing names none)."""
    data = action.to_json()
    return tuple(data.get(k) for k in ("do", "seat", "from", "to", "hand", "move"))


@dataclass
class _Flagged:
    """A flagged decision waiting for its playouts: the watch as it stood then (its bots'
    memories), the position, the best and the played action."""

    decision: dict[str, Any]
    watch: Watcher
    state: domain.MatchState
    seat: int
    best: domain.Action
    played: domain.Action
    drop: float


@dataclass
class _Game:
    entry: dict[str, Any]
    flagged: list[_Flagged] = field(default_factory=list)


def _played(batch: Sequence[domain.Event]) -> domain.Action | None:
    """The play action (a move, turn or discard) whose command made `batch`, if it is one."""
    if not batch or isinstance(batch[0], domain.GameStarted | domain.MatchStarted):
        return None
    action = action_of(batch[0])
    return action if isinstance(action, domain.Move | domain.Turn | domain.Discard) else None


def _wrong_call(batch: Sequence[domain.Event]) -> domain.CrapetteCalled | None:
    for event in batch:
        if isinstance(event, domain.CrapetteCalled) and event.verdict != "right":
            return event
    return None


def judge_move(
    watch: Watcher, state: domain.MatchState, seat: int, played: domain.Action, version: int
) -> tuple[dict[str, Any], domain.Action, float]:
    """A move's decision as the search sees it: the best candidate (the strongest bot's
    choice), its chance, the played one's; and the search's drop."""
    ranked = watch.rank(state, seat)
    mine = next((c for c in ranked if same(c.action, played)), None)
    if not ranked:  # nothing the judge would list (cannot happen for a legal play action)
        chance = watch.chance(state, seat)
        ranked, mine = [], None
        best_action, best_chance, after, chances = played, chance, chance, [chance]
    else:
        best_action, best_chance = ranked[0].action, ranked[0].chance
        after = mine.chance if mine is not None else min(c.chance for c in ranked)
        chances = [c.chance for c in ranked]
    fault = mine is not None and _is_fault(state, played)
    drop = max(0.0, best_chance - after)
    same_move = same(best_action, played)
    cost = even_drop(best_chance, after)
    stake = round(max(even_drop(max(chances), min(chances)), cost), DIGITS)
    decision = {
        "version": version,
        "seat": seat,
        "played": action_json(played),
        "best": action_json(best_action if not same_move else played),
        "win_chance": {
            "before": round(best_chance, DIGITS),
            "after": round(after, DIGITS),
            "best": round(best_chance, DIGITS),
        },
        "judgement": "best" if same_move else judgement(drop) if drop < FLAG_FROM else "good",
        # Every candidate's chance (the learning mode's tries are answered from them).
        "candidates": {candidate_key(c.action.to_json()): round(c.chance, DIGITS) for c in ranked},
        "cost": round(cost, DIGITS),
        "stake": stake,
        "counted": fault or stake >= COUNTS_FROM,
        "check": None,
    }
    if fault:
        decision["faulty"] = True
    return decision, best_action, drop


def _is_fault(state: domain.MatchState, action: domain.Action) -> bool:
    from domain.bots.mirror import fault_in, mirror_game

    seen = domain.view(state, action.seat)
    return fault_in(mirror_game(seen), action) is not None


def _call_decision(
    version: int,
    seat: int,
    best_action: domain.Action,
    best: float,
    after: float,
    **extra: Any,
) -> dict[str, Any]:
    best, after = round(max(best, after), DIGITS), round(after, DIGITS)
    judged = judgement(max(best - after, CALL_COST_AT_LEAST))
    cost = max(even_drop(best, after), CALL_COST_AT_LEAST)
    floor = JUDGEMENTS.index("inaccuracy")
    return {
        "version": version,
        "seat": seat,
        "played": None,
        "best": action_json(best_action),
        "win_chance": {"before": best, "after": after, "best": best},
        "judgement": JUDGEMENTS[max(floor, JUDGEMENTS.index(judged))],
        "cost": round(cost, DIGITS),
        "stake": round(cost, DIGITS),  # two choices, the worse one made
        "counted": True,
        **extra,
    }


def confirm(decision: dict[str, Any], values: list[list[float]]) -> None:
    """Label a flagged decision from its playouts (`values`: the best's and the played's value
    on each deal): the measured drop decides."""
    best, played = values
    n = len(best)
    diffs = [b - p for b, p in zip(best, played, strict=True)]
    drop = sum(diffs) / n
    var = sum((d - drop) ** 2 for d in diffs) / (n - 1) if n > 1 else 0.0
    se = math.sqrt(var / n)
    decision["check"] = {
        "deals": n,
        "best": round(sum(best) / n, DIGITS),
        "played": round(sum(played) / n, DIGITS),
        "drop": round(drop, DIGITS),
        "se": round(se, DIGITS),
    }
    means = sum(best) / n, sum(played) / n
    decision["cost"] = round(even_drop(*means) if drop > 0 else 0.0, DIGITS)
    decision["stake"] = max(decision.get("stake", 0.0), decision["cost"])
    if drop >= BEST_WITHIN and drop >= CONFIRM_SE * se:
        decision["judgement"] = judgement(drop)
    else:
        decision["judgement"] = "best" if drop < BEST_WITHIN else "good"
    decision.pop("unchecked", None)


def analyse_record(
    record: dict[str, Any],
    *,
    depth: str = "normal",
    seed: int = 0,
    progress: Progress | None = None,
    verified: Verified | None = None,
) -> dict[str, Any]:
    """The judgements of every decision of `record` (verified first: RecordError if it does not
    hold; `verified`: the caller verified it already, this is `verify_record(record)`), at
    `depth` (how many playouts check the labels: `CHECKS`), `progress(done, total)` after each
    decision and each check:
    `{"depth", "seed", "judge", "games": [{"game_index", "seats": [{"accuracy", "counts",
    "counted"}] * 2, "decisions": [...], "missed_calls": [...], "wrong_calls": [...]}],
    "match": {"seats": [...]}}`."""
    if depth not in DEPTHS:
        raise JudgeError(f"depth is one of {', '.join(DEPTHS)}, not {depth!r}")
    if verified is None:
        verified = verify_record(record)
    batches = verified.batches
    missed = {
        f.index: f for game in analyse(e for b in batches for e in b).games for f in game.missed
    }
    total = sum(1 for b in batches if _played(b) is not None) + len(missed)
    budget = CHECKS[depth]
    done = 0
    games: dict[int, _Game] = {}
    watch = evaluator()()
    state: domain.MatchState | None = None
    version = 0
    checks = 0  # the checks to make (known once every move is judged)

    def tell() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, total + checks)

    for batch in batches:
        before = state
        played = _played(batch)
        if before is not None and before.game is not None and played is not None:
            game = _game_of(games, before)
            decision, best, drop = judge_move(watch, before, played.seat, played, version)
            game.entry["decisions"].append(decision)
            if decision["judgement"] == "good" and drop >= FLAG_FROM:
                decision["unchecked"] = True
                game.flagged.append(
                    _Flagged(decision, watch.fork(), before, played.seat, best, played, drop)
                )
            watch.played(before, played)
            tell()
        for event in batch:
            state = domain.evolve(state, event)
        assert state is not None
        wrong = _wrong_call(batch)
        if before is not None and before.game is not None and wrong is not None:
            seat = wrong.caller
            chance_before = watch.fork().chance(before, seat)
            watch.see(state)
            chance_after = (
                watch.fork().chance(state, seat) if state.game is not None else chance_before
            )
            _game_of(games, before).entry["wrong_calls"].append(
                _call_decision(
                    version, seat, domain.Pass(seat), chance_before, chance_after, wrong=True
                )
            )
        else:
            watch.see(state)
        version += len(batch)
        fault = missed.get(version - len(batch))
        if fault is not None and state.game is not None:
            _judge_missed(watch, games, state, version, fault)
            tell()
    flagged = sorted(
        (f for g in games.values() for f in g.flagged),
        key=lambda f: (-f.drop, f.decision["version"]),
    )[: budget.most]
    checks = len(flagged)
    for item in flagged:
        values = item.watch.check(
            item.state, item.seat, [item.best, item.played], budget.deals, seed
        )
        confirm(item.decision, values)
        tell()
    ordered = [games[k].entry for k in sorted(games)]
    for entry in ordered:
        judged = entry["decisions"] + entry["missed_calls"] + entry["wrong_calls"]
        entry["seats"] = [seat_summary([d for d in judged if d["seat"] == s]) for s in (0, 1)]
    every = [d for g in ordered for d in g["decisions"] + g["missed_calls"] + g["wrong_calls"]]
    match = {"seats": [seat_summary([d for d in every if d["seat"] == s]) for s in (0, 1)]}
    return {
        "depth": depth,
        "seed": seed,
        "judge": {
            "version": FORMAT_VERSION,
            "engine": "expert",
            "deals": budget.deals,
            "most_checked": budget.most,
        },
        "games": ordered,
        "match": match,
    }


def _game_of(games: dict[int, _Game], state: domain.MatchState) -> _Game:
    game = state.game
    assert game is not None
    found = games.get(game.game_index)
    if found is None:
        entry = {
            "game_index": game.game_index,
            "decisions": [],
            "missed_calls": [],
            "wrong_calls": [],
        }
        found = games[game.game_index] = _Game(entry)
    return found


def _judge_missed(
    watch: Watcher, games: dict[int, _Game], state: domain.MatchState, version: int, fault: Fault
) -> None:
    """A missed call: the seat's chance had it called (the best), against its chance with the
    fault standing (`after`: the position as it was left, nobody calling)."""
    call = domain.Call(1 - fault.seat)
    if call not in domain.legal_actions(state, call.seat):
        return
    game = state.game
    assert game is not None
    called = domain.decide_and_fold(state, domain.Act(call, game.move_started_at_ms))[1]
    best = watch.fork().chance(called, call.seat) if called.game is not None else 0.5
    after = watch.fork().chance(state, call.seat)
    _game_of(games, state).entry["missed_calls"].append(
        _call_decision(version, call.seat, call, best, after, fault=fault.to_json())
    )
