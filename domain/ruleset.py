"""The ruleset: every option of docs/spec/rules.md §9 as data, and the presets made of them."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal, get_args

from domain.errors import RulesetError, quote

SHOWN_KEYS = 5  # an error names at most this many unknown options, each quoted (cut)

# The values of every string option, classic first (docs/spec/rules.md §9). Each option's type is
# a Literal, so that mypy --strict refuses a misspelt value in code (`enforcement == "enforced"`);
# `CHOICES` is read from the same types for the checks made on a ruleset read from JSON.
FirstPlayer = Literal["lower_reserve", "higher_reserve", "high_cut", "alternate"]
WastePlayable = Literal["never", "always", "after_hand_empty"]
EmptyHouse = Literal["any", "king_only", "reserve_first", "refill_at_once"]
Priorities = Literal["classic", "finnish", "french6"]
HandCardLock = Literal["off", "on"]
DiscardRule = Literal["unless_foundation", "only_if_unplayable"]
Win = Literal["reserve_hand_waste", "reserve_hand"]
Enforcement = Literal["call", "enforce", "lenient"]
WrongCallPenalty = Literal["none", "lose_turn_after_3"]
MatchKind = Literal["points", "wins"]
HandsPerPlayer = Literal[1, 3]
Rotation = Literal["off", "winner_out", "loser_out"]

CHOICES: dict[str, tuple[str, ...]] = {
    "first_player": get_args(FirstPlayer),
    "waste_playable": get_args(WastePlayable),
    "empty_house": get_args(EmptyHouse),
    "priorities": get_args(Priorities),
    "hand_card_lock": get_args(HandCardLock),
    "discard_rule": get_args(DiscardRule),
    "win": get_args(Win),
    "enforcement": get_args(Enforcement),
    "wrong_call_penalty": get_args(WrongCallPenalty),
    "rotation": get_args(Rotation),
}
RESERVE_SIZES = (13, 12, 11, 10)
HOUSES_PER_PLAYER = (4, 2)
RESERVES_PER_PLAYER = (1, 2)
HANDS_PER_PLAYER: tuple[int, ...] = get_args(HandsPerPlayer)
# A rotation table (docs/spec/rules.md §10) holds at most this many people: two seated, the others
# waiting.
ROTATION_MAX_PEOPLE = 4


def parse_match(text: str) -> tuple[MatchKind, int]:
    """``"points:300"`` → ``("points", 300)``; ``"wins:3"`` → ``("wins", 3)``."""
    kind, _, number = str(text).partition(":")
    # ASCII digits only ("²" is a digit that int() refuses), and not thousands of them (int()
    # refuses more than 4,300; no match is played to 10**18 points).
    digits = number.isascii() and number.isdigit() and len(number) <= 18
    if not digits or int(number) < 1:
        raise RulesetError(f"match is points:N or wins:N with N ≥ 1, not {quote(text)}")
    if kind == "points":
        return "points", int(number)
    if kind == "wins":
        return "wins", int(number)
    raise RulesetError(f"match is points:N or wins:N with N ≥ 1, not {quote(text)}")


@dataclass(frozen=True, slots=True)
class Ruleset:
    """Every option of docs/spec/rules.md §9; the defaults are the classic rules.

    `name` is the preset the options started from (for the lobby; JSON key ``"preset"``); it takes
    no part in equality, so ``Ruleset.preset("italian") == Ruleset.preset("classic")``.
    """

    reserve_size: int = 13
    houses_per_player: int = 4
    reserves_per_player: int = 1
    hands_per_player: HandsPerPlayer = 1
    first_player: FirstPlayer = "lower_reserve"
    waste_playable: WastePlayable = "never"
    empty_house: EmptyHouse = "any"
    priorities: Priorities = "classic"
    hand_card_lock: HandCardLock = "off"
    discard_rule: DiscardRule = "unless_foundation"
    win: Win = "reserve_hand_waste"
    enforcement: Enforcement = "call"
    wrong_call_penalty: WrongCallPenalty = "none"
    move_time_limit_s: int | None = None
    match: str = "points:300"
    rotation: Rotation = "off"
    name: str = field(default="classic", compare=False)

    def __post_init__(self) -> None:
        # Whole numbers only: 12.0 == 12, but a float cannot count cards when dealing.
        if type(self.reserve_size) is not int or self.reserve_size not in RESERVE_SIZES:
            raise RulesetError(
                f"reserve_size is one of 13, 12, 11, 10, not {quote(self.reserve_size)}"
            )
        if (
            type(self.houses_per_player) is not int
            or self.houses_per_player not in HOUSES_PER_PLAYER
        ):
            raise RulesetError(f"houses_per_player is 4 or 2, not {quote(self.houses_per_player)}")
        if (
            type(self.reserves_per_player) is not int
            or self.reserves_per_player not in RESERVES_PER_PLAYER
        ):
            raise RulesetError(
                f"reserves_per_player is 1 or 2, not {quote(self.reserves_per_player)}"
            )
        if type(self.hands_per_player) is not int or self.hands_per_player not in HANDS_PER_PLAYER:
            raise RulesetError(f"hands_per_player is 1 or 3, not {quote(self.hands_per_player)}")
        for name, allowed in CHOICES.items():
            value = getattr(self, name)
            if value not in allowed:
                raise RulesetError(f"{name} is one of {', '.join(allowed)}, not {quote(value)}")
        limit = self.move_time_limit_s
        bad_limit = isinstance(limit, bool) or not isinstance(limit, int) or limit < 1
        if limit is not None and bad_limit:
            raise RulesetError(
                f"move_time_limit_s is a whole number of seconds ≥ 1, not {quote(limit)}"
            )
        parse_match(self.match)

    @classmethod
    def preset(cls, name: str) -> Ruleset:
        """The preset of that name (``classic``, ``g4a``, ``danish``, …)."""
        try:
            return PRESETS[name]
        except KeyError:
            raise RulesetError(
                f"unknown preset {quote(name)} (known: {', '.join(PRESETS)})"
            ) from None

    @property
    def match_kind(self) -> MatchKind:
        return parse_match(self.match)[0]

    @property
    def match_target(self) -> int:
        return parse_match(self.match)[1]

    def to_json(self) -> dict[str, Any]:
        """Every option written out, plus the preset label under ``"preset"``."""
        data: dict[str, Any] = {"preset": self.name}
        data.update({name: getattr(self, name) for name in OPTION_NAMES})
        return data

    def to_record_json(self) -> dict[str, Any]:
        """`to_json` without the variant options of §10 that are unset: a match record of any
        other ruleset stays as it was before those options existed."""
        data = self.to_json()
        for name, unset in VARIANT_DEFAULTS.items():
            if data[name] == unset:
                del data[name]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Ruleset:
        """Options over a preset: ``{"preset": "danish", "match": "wins:2"}``. Unknown keys fail."""
        if not isinstance(data, dict):
            raise RulesetError("a ruleset is a JSON object of options")
        base = cls.preset(str(data.get("preset", "classic")))
        known = {f.name for f in fields(cls) if f.name != "name"} | {"preset"}
        unknown = sorted(set(data) - known, key=str)
        if unknown:
            shown = ", ".join(quote(key) for key in unknown[:SHOWN_KEYS])
            more = f" and {len(unknown) - SHOWN_KEYS} more" if len(unknown) > SHOWN_KEYS else ""
            raise RulesetError(f"unknown ruleset option(s): {shown}{more}")
        overrides = {k: v for k, v in data.items() if k != "preset"}
        for key in _WHOLE_NUMBERS:  # JSON has one kind of number: 12.0 is read as 12
            value = overrides.get(key)
            if type(value) is float and value.is_integer():
                overrides[key] = int(value)
        if "move_time_limit_s" in overrides and overrides["move_time_limit_s"] in ("none", ""):
            overrides["move_time_limit_s"] = None
        try:
            return replace(base, **overrides)
        except TypeError as exc:
            raise RulesetError(str(exc)) from None


# The options of docs/spec/rules.md §10 and their values when unset (`Ruleset.to_record_json`).
VARIANT_DEFAULTS: dict[str, object] = {
    "reserves_per_player": 1,
    "hands_per_player": 1,
    "rotation": "off",
}

# Every option of a ruleset (its fields but the preset label), in field order.
OPTION_NAMES: tuple[str, ...] = tuple(f.name for f in fields(Ruleset) if f.name != "name")

# The options that count something: whole numbers (a float cannot count cards when dealing).
_WHOLE_NUMBERS = (
    "reserve_size",
    "houses_per_player",
    "reserves_per_player",
    "hands_per_player",
    "move_time_limit_s",
)


def _preset(name: str, **changes: Any) -> Ruleset:
    return Ruleset(name=name, **changes)


PRESETS: dict[str, Ruleset] = {
    "classic": _preset("classic"),
    "g4a": _preset("g4a", enforcement="enforce", match="points:150"),
    "danish": _preset(
        "danish",
        empty_house="refill_at_once",
        waste_playable="after_hand_empty",
        discard_rule="only_if_unplayable",
    ),
    "italian": _preset("italian"),
    "finnish": _preset(
        "finnish",
        reserve_size=12,
        priorities="finnish",
        empty_house="reserve_first",
        hand_card_lock="on",
        move_time_limit_s=10,
        match="points:200",
        first_player="high_cut",
    ),
    "french": _preset(
        "french",
        houses_per_player=2,
        first_player="high_cut",
        waste_playable="always",
        priorities="french6",
        discard_rule="only_if_unplayable",
        win="reserve_hand",
        match="wins:3",
    ),
    "beginner": _preset("beginner", enforcement="lenient"),
    "italian-two-reserves": _preset("italian-two-reserves", reserves_per_player=2),
    "italian-three-hands": _preset("italian-three-hands", hands_per_player=3),
    # §10 "Crapette a quattro giocatori" read literally: the winner gives up his seat.
    "italian-four": _preset("italian-four", rotation="winner_out"),
}

PRESET_DESCRIPTIONS: dict[str, str] = {
    "classic": "Classic Crapette (pagat.com): 13-card reserve, Crapette! calls, 300 points.",
    "g4a": "As the G4A program plays it: priorities enforced by the server, 150 points.",
    "danish": "Danish Russian Bank: refill emptied houses at once, waste playable after the hand.",
    "italian": "Italian rules: as classic (ties compared left to right).",
    "finnish": "Finnish Tunj: 12-card reserve, strict priorities, hand card lock, 10 s per move.",
    "french": "French Crapette: 2 houses each, waste playable, six priorities, first to 3 wins.",
    "beginner": "Beginner: priorities are only advice, no faults and no calls.",
    "italian-two-reserves": "Italian variant: two reserves each, both tops in play.",
    "italian-three-hands": "Italian variant: three hands each, turn from any of them.",
    "italian-four": "Italian variant for 3 or 4 people: the winner gives his seat to the next.",
}
