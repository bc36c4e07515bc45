"""Every ruleset option in words, for the lobby's "Advanced" form and a guest's join form.

The values are the domain's (a unit test checks that each is one `domain.Ruleset` accepts and that
no option is left out); this module adds only what a person reads: a label, a one-line
explanation, and a label per value. `GET /api/presets` serves it as `options`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class OptionHelp:
    name: str  # the ruleset's JSON key (docs/spec/rules.md §9)
    label: str
    help: str  # one line
    kind: str  # "choice" (one of `values`), "seconds" (a whole number or null), "match"
    values: tuple[tuple[Any, str], ...] = ()  # (value, label), the classic value first

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "label": self.label,
            "help": self.help,
            "kind": self.kind,
            "values": [{"value": value, "label": label} for value, label in self.values],
        }


OPTIONS: tuple[OptionHelp, ...] = (
    OptionHelp(
        "match",
        "Match",
        "When the match ends: a total of points, or a number of games won.",
        "match",
        (
            ("points:300", "first to 300 points"),
            ("points:200", "first to 200 points"),
            ("points:150", "first to 150 points"),
            ("points:50", "first to 50 points"),
            ("wins:1", "a single game"),
            ("wins:2", "first to two games won"),
            ("wins:3", "first to three games won"),
        ),
    ),
    OptionHelp(
        "move_time_limit_s",
        "Time per move",
        "How long a player may think before each action; when it runs out the turn ends.",
        "seconds",
        (
            (None, "no limit"),
            (10, "10 seconds"),
            (30, "30 seconds"),
            (60, "1 minute"),
            (120, "2 minutes"),
        ),
    ),
    OptionHelp(
        "reserve_size",
        "Reserve size",
        "How many cards each player's reserve starts with; fewer make shorter games.",
        "choice",
        ((13, "13 cards"), (12, "12 cards"), (11, "11 cards"), (10, "10 cards")),
    ),
    OptionHelp(
        "houses_per_player",
        "Houses per player",
        "How many of the eight houses are dealt; with 2 each player has the two nearest.",
        "choice",
        ((4, "4 houses each"), (2, "2 houses each")),
    ),
    OptionHelp(
        "reserves_per_player",
        "Reserves per player",
        "Italian variant: with 2, the reserve cards are dealt into two reserves, "
        "both tops in play.",
        "choice",
        ((1, "1 reserve each"), (2, "2 reserves each")),
    ),
    OptionHelp(
        "hands_per_player",
        "Hands per player",
        "Italian variant: with 3, the hand is dealt into three hands, each turned at will.",
        "choice",
        ((1, "1 hand each"), (3, "3 hands each")),
    ),
    OptionHelp(
        "first_player",
        "Who starts",
        "Who moves first in each game.",
        "choice",
        (
            ("lower_reserve", "the lower reserve card"),
            ("higher_reserve", "the higher reserve card"),
            ("high_cut", "a high cut of the packs"),
            ("alternate", "players take turns from game to game"),
        ),
    ),
    OptionHelp(
        "waste_playable",
        "Waste playable",
        "Whether the top card of your own waste may be played.",
        "choice",
        (
            ("never", "never"),
            ("always", "always"),
            ("after_hand_empty", "once your hand is empty"),
        ),
    ),
    OptionHelp(
        "empty_house",
        "Empty house",
        "Which cards may fill a house that has become empty.",
        "choice",
        (
            ("any", "any card"),
            ("king_only", "Kings only"),
            ("reserve_first", "reserve cards only, while the reserve lasts"),
            ("refill_at_once", "refilled from the reserve at once, before anything else"),
        ),
    ),
    OptionHelp(
        "priorities",
        "Priorities",
        "Which moves are compulsory, and in what order (the rules page explains each).",
        "choice",
        (
            ("classic", "classic"),
            ("finnish", "Finnish"),
            ("french6", "French six-step"),
        ),
    ),
    OptionHelp(
        "hand_card_lock",
        "Hand card lock",
        "Whether a turned card that fits nowhere goes straight to the waste, ending the turn.",
        "choice",
        (("off", "off"), ("on", "on")),
    ),
    OptionHelp(
        "discard_rule",
        "Discarding",
        "When the turned hand card may be put on the waste.",
        "choice",
        (
            ("unless_foundation", "unless it fits a foundation"),
            ("only_if_unplayable", "only if it fits nowhere"),
        ),
    ),
    OptionHelp(
        "win",
        "Winning",
        "Which of your piles must be empty to win a game.",
        "choice",
        (
            ("reserve_hand_waste", "reserve, hand and waste"),
            ("reserve_hand", "reserve and hand (the waste may remain)"),
        ),
    ),
    OptionHelp(
        "enforcement",
        "Enforcement",
        "What happens when a player skips a compulsory move.",
        "choice",
        (
            ("call", "a fault the opponent may call (Crapette!)"),
            ("enforce", "the server refuses the move"),
            ("lenient", "nothing: priorities are only advice"),
        ),
    ),
    OptionHelp(
        "wrong_call_penalty",
        "Wrong calls",
        "What a player loses for calling Crapette! when there was no fault.",
        "choice",
        (("none", "nothing"), ("lose_turn_after_3", "the next turn, after three wrong calls")),
    ),
    OptionHelp(
        "rotation",
        "Table of 3 or 4",
        "Italian variant for 3 or 4 people: after a won game one player gives his seat to the "
        "next.",
        "choice",
        (
            ("off", "off (two players)"),
            ("winner_out", "the winner gives up his seat"),
            ("loser_out", "the loser gives up his seat (king of the table)"),
        ),
    ),
)


def options_json() -> list[dict[str, Any]]:
    return [option.to_json() for option in OPTIONS]
