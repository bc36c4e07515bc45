// Events in words, for the table's log and the replay's move list, and the marks a replay timeline
// shows (faults, calls, verdicts, voided actions). Field names follow docs/domain-api.md; anything
// unknown is still shown by its type, so a new event kind never breaks the page.

import { cardShort } from "./cards.js";
import { t } from "./i18n.js";
import { capital, eventWords } from "./words.js";

function card(text) {
  return text ? ` ${cardShort(text)}` : "";
}

/** Short notation of an event, like a move list: "R0-F2 A♠", "turn 7♥", "crapette: right". */
export function eventNotation(ev) {
  if (!ev || !ev.type) return "…";
  switch (ev.type) {
    case "CardMoved":
    case "CompulsoryMovePlayed":
      return `${ev.src}-${ev.dst}${card(ev.card)}`;
    case "HandCardTurned":
      return `${t("notation.turn")}${card(ev.card)}`;
    case "WasteTurnedOver":
      return t("notation.waste_over");
    case "CardDiscarded":
      return `${t("notation.discard")}${card(ev.card)}`;
    case "Passed":
      return t("notation.pass");
    case "TurnEnded":
      return t("notation.turn_ends");
    case "CrapetteCalled":
      return `${t("call.word")} ${ev.verdict ? t(`notation.${ev.verdict}`) : ""}`.trim();
    case "ActionVoided":
      return t("notation.voided");
    case "DrawOffered":
      return t("notation.offers_draw");
    case "DrawAccepted":
      return t("notation.accepts_draw");
    case "TimeExpired":
      return t("notation.time_out");
    case "GameStarted":
      return t("notation.game_dealt", { n: (ev.game_index ?? 0) + 1 });
    case "MatchStarted":
      return t("notation.match_started");
    case "GameWon":
      return t("notation.game_won");
    case "GameStalemated":
      return t("notation.stalemate");
    case "GameResigned":
      return t("notation.resigned");
    case "MatchWon":
      // An abandoned match (docs/spec/rules.md §8) ends short of its target.
      return t(ev.abandoned_by === undefined || ev.abandoned_by === null ? "notation.match_won" : "notation.match_abandoned");
    case "PlayerQueued":
      return t("notation.queued", { who: ev.name });
    case "PlayerLeftQueue":
      return t("notation.left_queue", { who: ev.name });
    case "SeatsRotated":
      return t("notation.seats_rotated", { left: ev.left, entered: ev.entered });
    default:
      return ev.type;
  }
}

/** A sentence for a move list (the replay), in words and without pile codes: "Ann: A♠ from
 * their reserve to the ♠ foundation", "Bob calls Crapette! — right (...)". Seen by nobody's
 * seat; the table's own log speaks from the viewer's side (words.js). */
export function describeEvent(ev, players, viewer = null) {
  if (!ev || !ev.type) return t("notation.hidden");
  // A sentence: its first letter a capital, also where it starts with a bot's name ("robot …").
  return capital(eventWords(ev, { viewer, players: players ?? [], piles: {} }) ?? ev.type);
}

/** The timeline mark of an event: "fault", "call", "voided", "game" or null. */
export function eventMark(ev) {
  if (!ev || !ev.type) return null;
  if (ev.fault) return "fault";
  if (ev.type === "CrapetteCalled") return "call";
  if (ev.type === "ActionVoided" || ev.type === "CompulsoryMovePlayed") return "voided";
  if (["GameStarted", "GameWon", "GameStalemated", "GameResigned", "MatchWon"].includes(ev.type)) {
    return "game";
  }
  return null;
}

/** Piles to highlight for an event: {from, to} (either may be missing). */
export function eventPiles(ev) {
  if (!ev) return {};
  if (ev.src || ev.dst) return { from: ev.src, to: ev.dst };
  const seat = ev.seat;
  if (ev.type === "HandCardTurned") return { from: `H${seat}`, to: `X${seat}` };
  if (ev.type === "CardDiscarded") return { from: `X${seat}`, to: `W${seat}` };
  if (ev.type === "WasteTurnedOver") return { from: `W${seat}`, to: `H${seat}` };
  return {};
}
