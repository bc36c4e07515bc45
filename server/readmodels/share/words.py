"""The shared pictures' words (issue 39): a position's caption, header and pile labels in one of
the client's languages, from its own catalogue (web/i18n/<lang>.json, server/wire/languages.py),
said as the replay page says them to a spectator (web/js/words.js): cards by their symbols
("10♥", French "R♠"), piles in words ("Bob's reserve", "house 3", "the ♠ foundation"), a bot by
its name in that language. No pile code (R0, T3, …), card code (8D) or event name reaches a
picture."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from server.wire import languages

SUIT_GLYPH = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
_CARD = re.compile(r"^(10|[A2-9TJQK])([SHDC])(?:/[01])?$")
_RANK = {"A": 1, "T": 10, "J": 11, "Q": 12, "K": 13}
_PILE = re.compile(r"^([RQHIJXWTF])([0-7])$")
_BOT = re.compile(r"^(\w+) bot$")
# A call's verdict in the log says which rule ("— right (rule)"): the picture has no room for it.
_RULE = re.compile(r"\s*\(\{rule\}\)")


@dataclass(frozen=True)
class Words:
    """The words of one language (`lang` one of server/wire/languages.py LANGUAGES)."""

    lang: str = languages.DEFAULT

    def t(self, key: str, **params: Any) -> str:
        message: Any = languages.catalogue(self.lang).get(key)
        if message is None:
            message = languages.catalogue(languages.DEFAULT)[key]
        if isinstance(message, dict):  # plural forms: the picture says counts as "other"
            message = message.get("one" if params.get("count") == 1 else "other", "")
        return re.sub(
            r"\{(\w+)\}",
            lambda m: str(params[m[1]]) if m[1] in params else m[0],
            str(message),
        )

    def has(self, key: str) -> bool:
        return key in languages.catalogue(self.lang) or key in languages.catalogue("en")

    def card(self, text: Any) -> str:
        """ "8D/1" → "8♦", "KS" → "K♠" (French "R♠"); a hidden card is "a card"."""
        found = _CARD.match(text) if isinstance(text, str) else None
        if found is None:
            return self.t("card.hidden")
        rank = _RANK.get(found[1]) or int(found[1])
        shown = self.t(f"card.short.{rank}") if rank == 1 or rank > 10 else str(rank)
        return shown + SUIT_GLYPH[found[2]]

    def name(self, name: str | None, seat: int | None = None) -> str:
        """A player as the page shows him: a bot's seat by its strength in this language
        ("steady bot" → "robot régulier"), a free seat as "player 2"."""
        if not name:
            return self.t("player.n", n=(seat or 0) + 1) if seat is not None else ""
        found = _BOT.match(name)
        if found and self.has(f"bot.{found[1]}"):
            return self.t("bot.named", bot=self.t(f"bot.{found[1]}"))
        return name

    def pile(
        self,
        code: str,
        players: list[str],
        actor: int | None = None,
        piles: dict[str, Any] | None = None,
        card: Any = None,
    ) -> str:
        """A pile in words as a spectator reads it: "house 3", "the ♠ foundation", "Bob's
        waste", and "their waste" for the pile of the player whose action is told."""
        found = _PILE.match(code or "")
        if found is None:
            return self.t("pile.unknown")
        kind, n = found[1], int(found[2])
        if kind == "T":
            return self.t("pile.house", n=n + 1)
        if kind == "F":
            suit = _suit_of((piles or {}).get(code) or [], card)
            return (
                self.t("pile.foundation", suit=SUIT_GLYPH[suit])
                if suit
                else self.t("pile.foundation_empty")
            )
        three = "IJ".__contains__(kind) or (kind == "H" and f"I{n}" in (piles or {}))
        key = "pile.hand_named" if three else f"pile.{kind}"
        if actor is not None and n == actor:
            return self.t(f"{key}.theirs", letter=kind)
        who = self.name(players[n] if n < len(players) else None, n)
        return self.t(f"{key}.players", letter=kind, player=who)

    def slot(self, kind: str) -> str:
        """A tray pile's label under it ("reserve", "turned")."""
        return self.t(f"slot.{kind}")

    def where(self, game_index: int, turn: int) -> str:
        return self.t("picture.where", n=game_index + 1, turn=turn)

    def caption(self, frame: dict[str, Any], players: list[str]) -> str:
        """The frame's event in words: the action it plays (from the view's last action), or
        what happened ("Game 2 dealt; Bob starts", "Ann wins the game"); "" for an event the
        log leaves unsaid. A sentence: its first letter a capital ("Steady bot turned 2♦")."""
        said = self._caption(frame, players)
        return said[:1].upper() + said[1:]

    def _caption(self, frame: dict[str, Any], players: list[str]) -> str:
        event = frame.get("event") or {}
        view = frame.get("view") or {}
        kind = str(event.get("type", ""))
        action = view.get("last_action")
        piles = view.get("piles") or {}

        def who(seat: Any) -> str:
            if not isinstance(seat, int) or seat not in (0, 1):
                return self.t("player.someone")
            return self.name(players[seat] if seat < len(players) else None, seat)

        if action is not None and kind in _ACTION_EVENTS:
            seat = action.get("seat")
            card = self.card(action.get("card"))
            what = action.get("do")
            if what == "move":
                where = {
                    "from": self.pile(action["from"], players, seat, piles, action.get("card")),
                    "to": self.pile(action["to"], players, seat, piles, action.get("card")),
                }
                if kind == "CompulsoryMovePlayed":
                    return self.t("log.compulsory", card=card, **where)
                return self.t("log.moved", who=who(seat), card=card, **where)
            if what == "turn":
                return self.t("log.turned", who=who(seat), card=card)
            if what == "discard":
                return self.t("log.discarded", who=who(seat), card=card)
            if what == "pass":
                return self.t("log.passed", who=who(seat))
            if what == "call":
                right = action.get("verdict") == "right"
                said = _RULE.sub("", self.t("log.call_right")) if right else None
                if said is not None:
                    return said.replace("{who}", who(seat))
                return self.t("log.call_wrong", who=who(seat))
        return self._event(kind, event, view, who)

    def _event(self, kind: str, event: dict[str, Any], view: dict[str, Any], who: Any) -> str:
        totals = event.get("totals") or view.get("totals") or [0, 0]
        if kind == "GameStarted":
            first = view.get("to_move")
            starts = self.t("log.starts", who=who(first)) if first in (0, 1) else ""
            return self.t("log.game_dealt", n=int(event.get("game_index") or 0) + 1, starts=starts)
        if kind == "GameWon":
            return self.t("log.game_won", who=who(event.get("winner")), score="")
        if kind == "GameResigned":
            return self.t("log.resigned", who=who(event.get("seat")), score="")
        if kind == "MatchWon":
            return self.t(
                "log.match_won", who=who(event.get("winner")), totals=f"{totals[0]}–{totals[1]}"
            )
        if kind == "TurnEnded":
            return self.t("log.their_turn", who=who(event.get("next_seat")))
        if kind == "WasteTurnedOver":
            return self.t("log.waste_over", who=who(event.get("seat")), count=event.get("count"))
        if kind == "DrawOffered":
            return self.t("log.draw_offered", who=who(event.get("seat")))
        if kind == "DrawAccepted":
            return self.t("log.draw_accepted", who=who(event.get("seat")))
        if kind == "TimeExpired":
            return self.t("log.time_out", who=who(event.get("seat")))
        if kind == "ActionVoided":
            return self.t("log.voided")
        if kind == "PlayerQueued":
            return self.t("log.queued", who=self.name(event.get("name")))
        if kind == "PlayerLeftQueue":
            return self.t("log.left_queue", who=self.name(event.get("name")))
        if kind == "SeatsRotated":
            return self.t(
                "log.seats_rotated",
                left=self.name(event.get("left")),
                n=int(event.get("seat") or 0) + 1,
                entered=self.name(event.get("entered")),
            )
        if kind == "GameStalemated":
            return self.t("picture.stalemate")
        if kind == "MatchStarted":
            names = self.t("lobby.versus", a=who(0), b=who(1))
            return self.t("log.match_started", players=names)
        return ""


_ACTION_EVENTS = {
    "CardMoved",
    "CompulsoryMovePlayed",
    "HandCardTurned",
    "CardDiscarded",
    "Passed",
    "CrapetteCalled",
}


def _suit_of(cards: list[Any], card: Any) -> str | None:
    for text in [*cards, card]:
        found = _CARD.match(text) if isinstance(text, str) else None
        if found:
            return found[2]
    return None
