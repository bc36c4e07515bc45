"""`crapette deal --seed HEX [--preset NAME] [--json]`: show the deal a seed makes, and who starts.

Anyone holding a game record can check its deal with this command alone (docs/spec/records.md §1).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import click

from domain import PRESETS, Ruleset
from domain import deal as dealing
from domain.cards import Card

# Q: two reserves, I and J: three hands (§10).
PILE_ORDER = [f"{kind}{seat}" for seat in (0, 1) for kind in "RQHIJXW"]


def _pile_order(piles: dict[str, list[Card]]) -> list[str]:
    houses = sorted((name for name in piles if name.startswith("T")), key=lambda n: int(n[1:]))
    foundations = sorted((name for name in piles if name.startswith("F")), key=lambda n: int(n[1:]))
    return [name for name in PILE_ORDER if name in piles] + houses + foundations


def deal_summary(seed: str, preset: str) -> dict[str, Any]:
    """Everything the command prints, as JSON-able data."""
    ruleset = Ruleset.preset(preset)
    packs = dealing.packs_from_seed(seed)
    piles = dealing.layout(
        packs,
        ruleset.reserve_size,
        ruleset.houses_per_player,
        ruleset.reserves_per_player,
        ruleset.hands_per_player,
    )
    seat, reason = dealing.first_player(ruleset, packs, seed, 0, None)
    return {
        "algorithm": dealing.ALGORITHM,
        "seed": seed.lower(),
        "commitment": dealing.commitment(seed),
        "preset": preset,
        "packs": [[card.code for card in pack] for pack in packs],
        # Bottom to top, cards with their owner, like a view's piles.
        "layout": {name: [str(card) for card in piles[name]] for name in _pile_order(piles)},
        "first_player": seat,
        "first_player_reason": reason,
    }


def _wrapped(codes: Sequence[str], indent: str, per_line: int = 26) -> str:
    lines = [" ".join(codes[i : i + per_line]) for i in range(0, len(codes), per_line)]
    return ("\n" + indent).join(lines)


def _as_text(summary: dict[str, Any]) -> str:
    out = [
        f"seed        {summary['seed']}",
        f"commitment  {summary['commitment']}",
        f"algorithm   {summary['algorithm']}   preset {summary['preset']}",
    ]
    for seat, pack in enumerate(summary["packs"]):
        out.append(f"pack {seat} (top first)")
        out.append("  " + _wrapped(pack, "  "))
    out.append("layout (bottom to top; the last card of R, Q, H, I and J is on top)")
    for name, cards in summary["layout"].items():
        shown = _wrapped([card.split("/")[0] for card in cards], " " * 8) if cards else "-"
        out.append(f"  {name:<4}  {shown}")
    out.append(f"first player: seat {summary['first_player']} ({summary['first_player_reason']})")
    return "\n".join(out)


@click.command("deal")
@click.option("--seed", required=True, help="The game's seed: 64 hex digits.")
@click.option(
    "--preset",
    default="classic",
    show_default=True,
    type=click.Choice(sorted(PRESETS)),
    help="Ruleset preset (reserve size, houses, who starts).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def deal(seed: str, preset: str, as_json: bool) -> None:
    """Print both packs, the dealt layout and the first player, with the reason."""
    try:
        summary = deal_summary(seed, preset)
    except dealing.DealError as exc:
        raise click.BadParameter(exc.message, param_hint="--seed") from None
    click.echo(json.dumps(summary, indent=2) if as_json else _as_text(summary))
