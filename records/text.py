"""The text form of a match record: PGN-like, lines under 80 characters, lossless both ways.

```
[Format "crapette-record/1"]
[Match "m-3f9c2a71b0"]
[Seat0 "Ann"]
...
[Game "1"]
[Seed "…"]
...

1. 0 R0-F0 AS/0 @2130
   0 turn 7C/0 @3410
      recycled 12
   0 discard 7C/0 @5020
      turn-end 1 "discard"
2. 1 T3-F1 2S/1 @900
      fault "priority: reserve to foundation first"
```

Header lines are `[Tag "value"]` (the value is a JSON string; a value too long for one line is
split over repeated tags of the same name, read back by concatenation). Each action is one line:
the turn number on the first action of a turn, the seat, the action's notation
(docs/spec/records.md §2), its card, `@` milliseconds since the game started; then one indented
line per decision of the server.
docs/records.md is the full grammar. This module knows only the format, not the rules.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from domain.errors import quote
from records.errors import RecordFormatError
from records.schema import FORMAT, dump_record, load_record

WIDTH = 79  # every line is shorter than 80 characters
_TURN_INDENT = 3  # "12. " grows the prefix; continuation actions are indented by this much
_DECISION_INDENT = " " * 6
_CONTINUE = " " * 8 + "& "

# Notation of each `do` that is not a move (docs/spec/records.md §2); a call is `crapette`.
_WORDS = {
    "turn": "turn",
    "discard": "discard",
    "pass": "pass",
    "call": "crapette",
    "resign": "resign",
    "abandon": "abandon",
    "offer-draw": "offer-draw",
    "accept-draw": "accept-draw",
    "time-out": "time-out",
}
_DOINGS = {word: do for do, word in _WORDS.items()}
_HANDS = frozenset(f"{kind}{seat}" for kind in "HIJ" for seat in (0, 1))  # never a card code
_DECISIONS = (
    "fault",
    "rule",
    "recycled",
    "verdict",
    "penalty",
    "target",
    "voided",
    "voided-none",
    "compulsory",
    "discarded",
    "turn-end",
    "turn-end-none",
)


def _quote(text: str) -> str:
    """A JSON string, readable (no \\u escapes for letters) but with every character that could
    end or hide a line (U+2028, U+0085, controls...) escaped, so one value stays on one line."""
    quoted = json.dumps(text, ensure_ascii=False)
    if quoted.isprintable():
        return quoted
    return "".join(c if c.isprintable() else json.dumps(c)[1:-1] for c in quoted)


def _chunks(text: str, room: int) -> list[str]:
    """Split `text` into pieces whose quoted form fits in `room` characters (at least one piece)."""
    pieces: list[str] = []
    current = ""
    for char in text:
        if current and len(_quote(current + char)) > room:
            pieces.append(current)
            current = ""
        current += char
    pieces.append(current)
    return pieces


def _tag(name: str, value: str) -> list[str]:
    room = WIDTH - len(f"[{name} ]")
    return [f"[{name} {_quote(piece)}]" for piece in _chunks(value, room)]


def _string_lines(head: str, text: str) -> list[str]:
    """`head "text"`, with `& "more"` continuation lines when it does not fit."""
    first_room = WIDTH - len(head) - 1
    if len(_quote(text)) <= first_room:
        return [f"{head} {_quote(text)}"]
    pieces = _chunks(text, WIDTH - len(_CONTINUE))
    return [head] + [_CONTINUE + _quote(piece) for piece in pieces]


def _option_value(value: object) -> str:
    return "-" if value is None else str(value)


def _pair(values: list[int]) -> str:
    return f"{values[0]} {values[1]}"


# ---------------------------------------------------------------------------------------------
# JSON → text


def to_text(record: dict[str, Any]) -> str:
    """The text form of a (valid) record."""
    record = dump_record(load_record(record))
    lines: list[str] = []
    lines += _tag("Format", FORMAT)
    lines += _tag("Match", record["match_id"])
    lines += _tag("Seat0", record["players"][0])
    lines += _tag("Seat1", record["players"][1])
    if record.get("preset") is not None:
        lines += _tag("Preset", record["preset"])
    lines += _tag("Started", str(record["started_at_ms"]))
    if record.get("live"):
        lines += _tag("Live", "yes")
    for name, value in record["ruleset"].items():
        lines += _tag("Option", f"{name} {_option_value(value)}")
    result = record["result"]
    lines += _tag("Finished", "yes" if result["finished"] else "no")
    lines += _tag("Winner", "-" if result.get("winner") is None else str(result["winner"]))
    lines += _tag("Totals", _pair(result["totals"]))
    # A rotation table (docs/spec/records.md §3): the name comes last, so it may hold spaces.
    if "player" in result:
        lines += _tag("SessionWinner", "-" if result["player"] is None else result["player"])
    for person in result.get("people", []):
        lines += _tag("Person", f"{person['total']} {person['wins']} {person['name']}")
    for entry in record.get("queue", []):
        game = "-" if entry["game"] is None else str(entry["game"] + 1)
        lines += _tag(
            "Queue", f"{entry['do']} {game} {entry['after']} {entry['at_ms']} {entry['name']}"
        )
    for game in record["games"]:
        lines.append("")
        lines += _game_text(game)
    return "\n".join(lines) + "\n"


def _game_text(game: dict[str, Any]) -> list[str]:
    lines = _tag("Game", str(game["index"] + 1))
    if "players" in game:
        lines += _tag("Player0", game["players"][0])
        lines += _tag("Player1", game["players"][1])
    if "seat_change" in game:
        change = game["seat_change"]
        if change is None:
            lines += _tag("SeatChange", "-")
        else:
            lines += _tag("SeatChange", str(change["seat"]))
            lines += _tag("Left", change["left"])
            lines += _tag("Entered", change["entered"])
    lines += _tag("GameStarted", str(game["started_at_ms"]))
    deal = game["deal"]
    if deal.get("algorithm") is not None:
        lines += _tag("Deal", deal["algorithm"])
    if deal.get("seed") is not None:
        lines += _tag("Seed", deal["seed"])
    if deal.get("commitment") is not None:
        lines += _tag("Commitment", deal["commitment"])
    for seat, pack in enumerate(deal.get("packs") or []):
        for start in range(0, 52, 13):
            lines += _tag(f"Pack{seat}", " ".join(pack[start : start + 13]))
    lines += _tag("First", str(game["first_player"]))
    lines += _tag("FirstReason", game["first_player_reason"])
    result = game.get("result")
    if result is not None:
        lines += _tag("Outcome", result["outcome"])
        lines += _tag("GameWinner", "-" if result.get("winner") is None else str(result["winner"]))
        lines += _tag("Score", _pair(result["score"]))
        if result.get("penalties") is not None:
            lines += _tag("Penalties", _pair(result["penalties"]))
        lines += _tag("Reason", result["reason"])
    lines.append("")
    lines += _movetext(game["actions"])
    return lines


def action_notation(action: dict[str, Any]) -> str:
    """docs/spec/records.md §2 text of an action's JSON form (without its card)."""
    if action["do"] == "move":
        return f"{action['from']}-{action['to']}"
    word = _WORDS[action["do"]]
    if action["do"] == "call" and action.get("move"):
        return f"{word} {action['move']}"
    if action["do"] == "turn" and action.get("hand"):
        return f"{word} {action['hand']}"
    if action["do"] == "abandon" and action.get("claimed"):
        return f"{word} claimed"  # abandoned for an absent seat (issue 39)
    return word


def _movetext(actions: list[dict[str, Any]]) -> list[str]:
    lines: list[str] = []
    turn = 1
    new_turn = True
    for action in actions:
        prefix = f"{turn}." if new_turn else ""
        prefix = prefix.ljust(max(_TURN_INDENT, len(prefix) + 1 if prefix else 0))
        words = [str(action["seat"]), action_notation(action)]
        if action.get("card"):
            words.append(action["card"])
        words.append(f"@{action['ms']}")
        lines.append(prefix + " ".join(words))
        lines += _decision_lines(action)
        new_turn = bool(action.get("turn_end"))
        if new_turn:
            turn += 1
    return lines


def _decision_lines(action: dict[str, Any]) -> list[str]:
    head = _DECISION_INDENT
    lines: list[str] = []
    if "fault" in action:
        word = "fault" if action["fault"] else "fault no"
        if "rule" in action:
            lines += _string_lines(head + word, action["rule"])
        else:
            lines.append(head + word)
    elif "rule" in action:
        lines += _string_lines(head + "rule", action["rule"])
    if "recycled" in action:
        lines.append(f"{head}recycled {action['recycled']}")
    if "verdict" in action:
        lines.append(f"{head}verdict {action['verdict']}")
    if "penalty" in action:
        lines.append(head + ("penalty" if action["penalty"] else "penalty no"))
    if "target" in action:
        lines.append(f"{head}target {action['target']}")
    if "voided" in action:
        if not action["voided"]:
            lines.append(head + "voided-none")
        lines += [f"{head}voided {step}" for step in action["voided"]]
    if "compulsory" in action:
        move = action["compulsory"]
        lines.append(f"{head}compulsory {move['from']}-{move['to']} {move['card']}")
    if "discarded" in action:
        discarded = action["discarded"]
        lines += _string_lines(f"{head}discarded {discarded['card']}", discarded["reason"])
    if "turn_end" in action:
        if not action["turn_end"]:
            lines.append(head + "turn-end-none")
        for end in action["turn_end"]:
            lines += _string_lines(f"{head}turn-end {end['next']}", end["reason"])
    return lines


# ---------------------------------------------------------------------------------------------
# text → JSON


def _tokens(line: str, number: int) -> list[str | tuple[str]]:
    """Bare words as `str`, quoted JSON strings as a 1-tuple holding the decoded text."""
    decoder = json.JSONDecoder()
    out: list[str | tuple[str]] = []
    i = 0
    while i < len(line):
        if line[i].isspace():
            i += 1
        elif line[i] == '"':
            try:
                value, end = decoder.raw_decode(line, i)
            except json.JSONDecodeError:
                raise _bad(number, "unterminated or malformed quoted string") from None
            out.append((value,))
            i = end
        else:
            end = i
            while end < len(line) and not line[end].isspace() and line[end] != '"':
                end += 1
            out.append(line[i:end])
            i = end
    return out


def _bad(number: int, message: str) -> RecordFormatError:
    return RecordFormatError(f"line {number}: {message}")


def _lines(text: str) -> Iterator[tuple[int, str]]:
    # Only \n ends a line (str.splitlines would also split at U+2028 and friends).
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.rstrip(" \t\r")
        # Blank: no token at all (_tokens splits at any str.isspace(), U+0085 and U+3000 too).
        if line.strip() and not line.lstrip(" \t").startswith("%"):  # `%`: a comment
            yield number, line


class _Section:
    """The tags of one header block, with repeated tags concatenated in order."""

    def __init__(self) -> None:
        self.tags: dict[str, str] = {}
        self.repeated: dict[str, list[str]] = {}
        self.first_line = 0

    def add(self, number: int, line: str) -> None:
        tokens = _tokens(line.strip()[1:-1], number) if line.strip().endswith("]") else []
        if len(tokens) != 2 or not isinstance(tokens[0], str) or not isinstance(tokens[1], tuple):
            raise _bad(number, f'a header line is [Tag "value"], not {quote(line.strip())}')
        name, value = tokens[0], tokens[1][0]
        self.first_line = self.first_line or number
        self.tags[name] = self.tags.get(name, "") + value
        self.repeated.setdefault(name, []).append(value)

    def pop(self, name: str, required: bool = True) -> str | None:
        if name not in self.tags:
            if required:
                raise _bad(self.first_line, f"the header has no [{name} ...] tag")
            return None
        self.repeated.pop(name)
        return self.tags.pop(name)

    def need(self, name: str) -> str:
        value = self.pop(name)
        assert value is not None
        return value

    def done(self) -> None:
        if self.tags:
            raise _bad(self.first_line, f"unknown header tag [{next(iter(self.tags))} ...]")


def _int(text: str, number: int, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise _bad(number, f"{what} must be a whole number, not {quote(text)}") from None


def _int_pair(text: str, number: int, what: str) -> list[int]:
    parts = text.split()
    if len(parts) != 2:
        raise _bad(number, f"{what} is two numbers, not {quote(text)}")
    return [_int(part, number, what) for part in parts]


def _seat_or_none(text: str, number: int, what: str) -> int | None:
    return None if text == "-" else _int(text, number, what)


def from_text(text: str) -> dict[str, Any]:
    """Read the text form; return the record's JSON dict (validated by the schema)."""
    if not isinstance(text, str):
        raise RecordFormatError("a text record is text")
    head = _Section()
    games: list[tuple[_Section, list[tuple[int, str]]]] = []
    for number, line in _lines(text):
        if line.startswith("["):
            if line.startswith("[Game "):
                games.append((_Section(), []))
            section, moves = games[-1] if games else (head, [])
            if moves:
                raise _bad(number, "a header line after the game's actions")
            section.add(number, line)
        elif games:
            games[-1][1].append((number, line))
        else:
            raise _bad(number, f'a {FORMAT} text record starts with [Tag "value"] headers')
    if not head.tags:
        raise RecordFormatError(f"a {FORMAT} text record starts with [Format ...] header lines")
    record = _match_header(head)
    record["games"] = [_game(section, moves) for section, moves in games]
    return load_record(record)


def _match_header(head: _Section) -> dict[str, Any]:
    line = head.first_line
    fmt = head.need("Format")
    if fmt != FORMAT:
        raise _bad(line, f"this is a {quote(fmt)} record, not {FORMAT}")
    record: dict[str, Any] = {"format": fmt, "match_id": head.need("Match")}
    preset = head.pop("Preset", required=False)
    if preset is not None:
        record["preset"] = preset
    record["players"] = [head.need("Seat0"), head.need("Seat1")]
    record["started_at_ms"] = _int(head.need("Started"), line, "Started")
    live = head.pop("Live", required=False)
    if live is not None:
        record["live"] = live == "yes"
    ruleset: dict[str, object] = {}
    for option in head.repeated.get("Option", []):
        name, _, value = option.partition(" ")
        number = value.isascii() and value.isdigit()  # "²" is a digit that int() refuses
        ruleset[name] = None if value == "-" else _int(value, line, name) if number else value
    head.pop("Option", required=False)
    record["ruleset"] = ruleset
    finished = head.need("Finished")
    record["result"] = {
        "finished": finished == "yes",
        "winner": _seat_or_none(head.need("Winner"), line, "Winner"),
        "totals": _int_pair(head.need("Totals"), line, "Totals"),
    }
    winner = head.pop("SessionWinner", required=False)
    if winner is not None:
        record["result"]["player"] = None if winner == "-" else winner
    people = head.repeated.get("Person")
    if people is not None:
        head.pop("Person")
        record["result"]["people"] = [_person(text, line) for text in people]
    queue = head.repeated.get("Queue")
    if queue is not None:
        head.pop("Queue")
        record["queue"] = [_queue_entry(text, line) for text in queue]
    head.done()
    return record


def _person(text: str, line: int) -> dict[str, Any]:
    """`[Person "182 2 Ann"]`: total, games won, name."""
    total, wins, name = (text.split(" ", 2) + ["", ""])[:3]
    return {"name": name, "total": _int(total, line, "Person"), "wins": _int(wins, line, "Person")}


def _queue_entry(text: str, line: int) -> dict[str, Any]:
    """`[Queue "join 2 3 1764435732700 Dan"]`: join or leave, after action 3 of game 2 (`-`:
    before the first game), at that time, the name."""
    do, game, after, at_ms, name = (text.split(" ", 4) + [""] * 4)[:5]
    return {
        "do": do,
        "name": name,
        "game": None if game == "-" else _int(game, line, "Queue") - 1,
        "after": _int(after, line, "Queue"),
        "at_ms": _int(at_ms, line, "Queue"),
    }


def _game(section: _Section, moves: list[tuple[int, str]]) -> dict[str, Any]:
    line = section.first_line
    index = _int(section.need("Game"), line, "Game") - 1
    game: dict[str, Any] = {"index": index}
    first = section.pop("Player0", required=False)
    if first is not None:
        game["players"] = [first, section.need("Player1")]
    changed = section.pop("SeatChange", required=False)
    if changed is not None:
        game["seat_change"] = None
        if changed != "-":
            game["seat_change"] = {
                "left": section.need("Left"),
                "entered": section.need("Entered"),
                "seat": _int(changed, line, "SeatChange"),
            }
    game["started_at_ms"] = _int(section.need("GameStarted"), line, "GameStarted")
    deal: dict[str, Any] = {}
    for tag, key in (("Deal", "algorithm"), ("Seed", "seed"), ("Commitment", "commitment")):
        value = section.pop(tag, required=False)
        if value is not None:
            deal[key] = value
    packs = []
    for seat in (0, 1):
        parts = section.repeated.get(f"Pack{seat}")
        section.pop(f"Pack{seat}", required=False)
        if parts is not None:
            packs.append(" ".join(parts).split())
    if packs:
        deal["packs"] = packs
    game["deal"] = deal
    game["first_player"] = _int(section.need("First"), line, "First")
    game["first_player_reason"] = section.need("FirstReason")
    outcome = section.pop("Outcome", required=False)
    if outcome is not None:
        result: dict[str, Any] = {
            "outcome": outcome,
            "winner": _seat_or_none(section.need("GameWinner"), line, "GameWinner"),
            "score": _int_pair(section.need("Score"), line, "Score"),
        }
        penalties = section.pop("Penalties", required=False)
        if penalties is not None:
            result["penalties"] = _int_pair(penalties, line, "Penalties")
        result["reason"] = section.need("Reason")
        game["result"] = result
    section.done()
    game["actions"] = _actions(moves)
    return game


def _actions(moves: list[tuple[int, str]]) -> list[dict[str, Any]]:
    actions: list[dict[str, Any]] = []
    last_string: tuple[dict[str, Any], str] | None = None  # where an `&` line continues
    for number, line in moves:
        tokens = _tokens(line, number)
        if tokens[0] == "&":
            if last_string is None or len(tokens) != 2 or not isinstance(tokens[1], tuple):
                raise _bad(number, 'a continuation line is & "more text" after a decision')
            target, key = last_string
            target[key] = target.get(key, "") + tokens[1][0]
            continue
        if line.startswith(_DECISION_INDENT) and tokens[0] not in _DECISIONS:
            raise _bad(number, f"unknown decision {quote(tokens[0])}")
        if tokens[0] in _DECISIONS:
            if not actions:
                raise _bad(number, "a decision line before any action")
            last_string = _decision(actions[-1], tokens, number)
            continue
        last_string = None
        actions.append(_action(tokens, number))
    return actions


def _action(tokens: list[str | tuple[str]], number: int) -> dict[str, Any]:
    words = [t for t in tokens if isinstance(t, str)]
    if len(words) != len(tokens):
        raise _bad(number, "an action line holds no quoted text")
    if words and words[0].endswith(".") and words[0][:-1].isdigit():
        words = words[1:]  # the turn number: presentation only, recomputed when written
    if len(words) < 3 or words[0] not in ("0", "1") or not words[-1].startswith("@"):
        raise _bad(number, "an action line is [N.] SEAT ACTION [CARD] @MS")
    action: dict[str, Any] = {"seat": int(words[0])}
    body = words[1:-1]
    word = body[0]
    if word in _DOINGS:
        action["do"] = _DOINGS[word]
        rest = body[1:]
        if action["do"] == "call" and rest and "-" in rest[0]:
            action["move"] = rest[0]
            rest = rest[1:]
        elif action["do"] == "turn" and rest and rest[0] in _HANDS:
            action["hand"] = rest[0]  # `turn I0`: three hands (docs/spec/rules.md §10)
            rest = rest[1:]
        elif action["do"] == "abandon" and rest and rest[0] == "claimed":
            action["claimed"] = True  # `abandon claimed`: the win claimed (issue 39)
            rest = rest[1:]
    elif "-" in word:
        source, _, destination = word.partition("-")
        action.update({"do": "move", "from": source, "to": destination})
        rest = body[1:]
    else:
        raise _bad(number, f"unknown action {quote(word)}")
    if len(rest) > 1:
        raise _bad(number, f"unexpected {quote(' '.join(rest[1:]))} after the card")
    if rest:
        action["card"] = rest[0]
    action["ms"] = _int(words[-1][1:], number, "the time after @")
    return action


def _decision(
    action: dict[str, Any], tokens: list[str | tuple[str]], number: int
) -> tuple[dict[str, Any], str] | None:
    """Read one decision line into `action`; return where a following `&` line would continue."""
    key = tokens[0]
    args = tokens[1:]
    strings = [t[0] for t in args if isinstance(t, tuple)]
    words = [t for t in args if isinstance(t, str)]

    def expect(n_words: int, n_strings: int) -> None:
        if len(words) != n_words or len(strings) > n_strings:
            raise _bad(number, f"malformed {quote(key)} decision")

    if key in ("fault", "penalty"):
        expect(1 if words == ["no"] else 0, 1 if key == "fault" else 0)
        action[key] = not words
        if strings:
            action["rule"] = strings[0]
        return (action, "rule") if key == "fault" else None
    if key == "rule":
        expect(0, 1)
        action["rule"] = strings[0] if strings else ""
        return (action, "rule")
    if key in ("recycled", "target"):
        expect(1, 0)
        action[key] = _int(words[0], number, key)
    elif key == "verdict":
        expect(1, 0)
        action["verdict"] = words[0]
    elif key == "voided":
        expect(len(words), 0)
        action.setdefault("voided", []).append(" ".join(words))
    elif key == "voided-none":
        expect(0, 0)
        action["voided"] = []
    elif key == "compulsory":
        expect(2, 0)
        source, _, destination = words[0].partition("-")
        action["compulsory"] = {"from": source, "to": destination, "card": words[1]}
    elif key == "discarded":
        expect(1, 1)
        action["discarded"] = {"card": words[0], "reason": strings[0] if strings else ""}
        return (action["discarded"], "reason")
    elif key == "turn-end":
        expect(1, 1)
        end = {"next": _int(words[0], number, "turn-end"), "reason": strings[0] if strings else ""}
        action.setdefault("turn_end", []).append(end)
        return (end, "reason")
    elif key == "turn-end-none":
        expect(0, 0)
        action["turn_end"] = []
    else:
        raise _bad(number, f"unknown decision {quote(key)}")
    return None
