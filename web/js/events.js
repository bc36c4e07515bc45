// Events in words, for the table's log and the replay's move list, and the marks a replay timeline
// shows (faults, calls, verdicts, voided actions). Field names follow docs/domain-api.md; anything
// unknown is still shown by its type, so a new event kind never breaks the page.

import { cardShort } from "./cards.js";

function who(players, seat) {
  if (seat === null || seat === undefined) return "?";
  return players?.[seat] ?? `seat ${seat}`;
}

function card(text) {
  return text ? ` ${cardShort(text)}` : "";
}

function fault(ev) {
  return ev.fault ? ` — fault (${ev.fault})` : "";
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

/** A sentence for the log: "Ann: R0-F2 A♠", "Bob calls Crapette! — right (priority ...)". */
export function describeEvent(ev, players) {
  if (!ev || !ev.type) return "(hidden)";
  const p = (seat) => who(players, seat);
  switch (ev.type) {
    case "CardMoved":
      return `${p(ev.seat)}: ${ev.src}-${ev.dst}${card(ev.card)}${fault(ev)}`;
    case "CompulsoryMovePlayed":
      return `compulsory move for ${p(ev.seat)}: ${ev.src}-${ev.dst}${card(ev.card)}`;
    case "HandCardTurned":
      return `${p(ev.seat)} turns${card(ev.card) || " a card"}${fault(ev)}`;
    case "WasteTurnedOver":
      return `${p(ev.seat)}'s waste becomes the hand (${ev.count ?? "?"} cards)`;
    case "CardDiscarded":
      return `${p(ev.seat)} discards${card(ev.card)}${fault(ev)}`;
    case "Passed":
      return `${p(ev.seat)} passes${fault(ev)}`;
    case "TurnEnded":
      return `${p(ev.next_seat)} to move${ev.reason ? ` (${ev.reason})` : ""}`;
    case "CrapetteCalled": {
      const verdict = ev.verdict === "right" ? "right" : "wrong";
      const rule = ev.rule ? ` (${ev.rule})` : "";
      return `${p(ev.caller ?? ev.seat)} calls Crapette! — ${verdict}${rule}`;
    }
    case "ActionVoided":
      return `voided: ${ev.action ?? ev.undo ?? describeUndo(ev)}`;
    case "DrawOffered":
      return `${p(ev.seat)} offers a stalemate`;
    case "DrawAccepted":
      return `${p(ev.seat)} accepts the stalemate`;
    case "TimeExpired":
      return `${p(ev.seat)} ran out of time`;
    case "MatchStarted":
      return `match started: ${(ev.players ?? players ?? []).join(" v ")}`;
    case "GameStarted": {
      const first = ev.first_player;
      const reason = ev.first_player_reason ? ` (${ev.first_player_reason})` : "";
      return `game ${(ev.game_index ?? 0) + 1} dealt; ${p(first)} starts${reason}`;
    }
    case "GameWon":
      return `${p(ev.winner)} wins the game${scoreText(ev.score)}`;
    case "GameStalemated":
      return `stalemate${scoreText(ev.score)}`;
    case "GameResigned":
      return `${p(ev.seat)} resigns; ${p(ev.winner)} wins${scoreText(ev.score)}`;
    case "MatchWon":
      return `${p(ev.winner)} wins the match ${(ev.totals ?? []).join("–")}`;
    default:
      return ev.type;
  }
}

function describeUndo(ev) {
  if (ev.src && ev.dst) return `${ev.dst}→${ev.src}${card(ev.card)}`;
  return ev.of_type ?? ev.voided_type ?? "an action";
}

function scoreText(score) {
  if (Array.isArray(score)) return ` (${score.join("–")})`;
  if (typeof score === "number") return ` (${score} points)`;
  return "";
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
