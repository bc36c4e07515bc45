// Events in words, for the table's log and the replay's move list, and the marks a replay timeline
// shows (faults, calls, verdicts, voided actions). Field names follow docs/domain-api.md; anything
// unknown is still shown by its type, so a new event kind never breaks the page.

import { cardShort } from "./cards.js";
import { eventWords } from "./words.js";

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
      return `turn${card(ev.card)}`;
    case "WasteTurnedOver":
      return "waste → hand";
    case "CardDiscarded":
      return `discard${card(ev.card)}`;
    case "Passed":
      return "pass";
    case "TurnEnded":
      return "— turn ends";
    case "CrapetteCalled":
      return `Crapette! ${ev.verdict ?? ""}`.trim();
    case "ActionVoided":
      return "voided";
    case "DrawOffered":
      return "offers stalemate";
    case "DrawAccepted":
      return "accepts stalemate";
    case "TimeExpired":
      return "time out";
    case "GameStarted":
      return `game ${(ev.game_index ?? 0) + 1} dealt`;
    case "MatchStarted":
      return "match started";
    case "GameWon":
      return "game won";
    case "GameStalemated":
      return "stalemate";
    case "GameResigned":
      return "resigned";
    case "MatchWon":
      return "match won";
    default:
      return ev.type;
  }
}

/** A sentence for a move list (the replay), in words and without pile codes: "Ann: A♠ from
 * their reserve to the ♠ foundation", "Bob calls Crapette! — right (...)". Seen by nobody's
 * seat; the table's own log speaks from the viewer's side (words.js). */
export function describeEvent(ev, players, viewer = null) {
  if (!ev || !ev.type) return "(hidden)";
  return eventWords(ev, { viewer, players: players ?? [], piles: {} }) ?? ev.type;
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
