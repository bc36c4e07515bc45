// Piles, cards and events in a player's words, from the viewer's side: "your reserve", "Bob's
// waste", "house 3", "the ♠ foundation", "10♥". No text a player reads names a pile by its code
// (R0, X1, W0, T3, F5, H1): those stay in records, the API and the replay's notation titles.
// Text the server wrote (refusals, the deal's reason) still holds codes; `inWords` rewrites them.

import { cardShort, parseCard } from "./cards.js";

const SUIT_GLYPH = { S: "♠", H: "♥", D: "♦", C: "♣" };
const TRAY_WORDS = { R: "reserve", H: "hand", X: "turned card", W: "waste" };

/**
 * What a sentence needs to name things: the viewer's seat (null for a spectator), the players'
 * names, and the piles of the position (to name a foundation by its suit).
 * @typedef {{viewer: number|null, players: string[], piles?: Object<string, (string|null)[]>}} Ctx
 */

/** A player's name from the viewer's side: "you" for the viewer himself. */
export function playerWords(seat, ctx, capital = false) {
  if (seat === null || seat === undefined) return capital ? "Someone" : "someone";
  if (ctx.viewer === seat) return capital ? "You" : "you";
  return ctx.players?.[seat] || `player ${seat + 1}`;
}

/** "your", "Bob's" — or "their" when the pile is the actor's own and the actor is not you. */
function whose(seat, ctx, actor) {
  if (seat === ctx.viewer) return "your";
  if (actor !== undefined && actor !== null && seat === actor) return "their";
  return `${ctx.players?.[seat] || `player ${seat + 1}`}'s`;
}

/** The suit a foundation holds (from its cards, or the card about to go there), or null. */
function foundationSuit(pile, ctx, card) {
  const cards = ctx.piles?.[pile] ?? [];
  const known = cards.find((c) => c);
  const text = known ?? card;
  if (!text) return null;
  try {
    return parseCard(text)?.suit ?? null;
  } catch {
    return null;
  }
}

/**
 * A pile in words: "your reserve", "Bob's waste", "house 3", "the ♠ foundation".
 * `actor`: the seat whose action the sentence tells (his own piles become "their ...");
 * `card`: the card that goes to or comes from the pile (names an empty foundation's suit).
 */
export function pileWords(pile, ctx, { actor, card } = {}) {
  const m = /^([RHXWTF])([0-7])$/.exec(pile ?? "");
  if (!m) return "a pile";
  const [, kind, digit] = m;
  const n = Number(digit);
  if (kind === "T") return `house ${n + 1}`;
  if (kind === "F") {
    const suit = foundationSuit(pile, ctx, card);
    return suit ? `the ${SUIT_GLYPH[suit]} foundation` : "an empty foundation";
  }
  return `${whose(n, ctx, actor)} ${TRAY_WORDS[kind]}`;
}

/** A card in short words: "7♠", "10♥"; a hidden card is "a card". */
export function cardText(text) {
  if (!text) return "a card";
  try {
    return cardShort(text);
  } catch {
    return "a card";
  }
}

const PILE_CODE = /\b([RHXW][01]|[TF][0-7])\b/g;
const CARD_CODE = /\b(10|[A2-9TJQK])([SHDC])(?:\/[01])?\b/g;
const SEAT = /\bseat ([01])\b/g;

/**
 * Rewrite a sentence the server wrote so that it names no pile by its code: "the top of T3 is
 * 7H" → "the top of house 4 is 7♥", "lower reserve top: 3D against 4D" → "… 3♦ against 4♦",
 * "seat 1 cut higher" → "Bob cut higher".
 */
export function inWords(text, ctx) {
  if (!text) return "";
  return String(text)
    .replace(PILE_CODE, (code) => pileWords(code, ctx))
    .replace(CARD_CODE, (_, rank, suit) => `${rank === "T" ? "10" : rank}${SUIT_GLYPH[suit]}`)
    .replace(SEAT, (_, s) => playerWords(Number(s), ctx));
}

/** A refusal from the server, in words: uses the move's parameters when the server sent them. */
export function refusalWords(msg, ctx) {
  const reason = inWords(msg?.message ?? msg?.code ?? "refused", ctx);
  const p = msg?.params;
  if (p?.from && p?.to) {
    const what = p.card ? `${cardText(p.card)} ` : "";
    const src = pileWords(p.from, ctx, { card: p.card });
    const dst = pileWords(p.to, ctx, { card: p.card });
    return `${what}cannot go from ${src} to ${dst}: ${reason}.`;
  }
  return `${capital(reason)}.`.replace(/\.\.$/, ".");
}

export function capital(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

const TURN_END = {
  discard: "after a discard",
  pass: "after a pass",
  "hand card lock": "the hand card was locked",
  time: "time ran out",
  crapette: "after a right call",
  "wrong calls": "a turn lost for three wrong calls",
};

/**
 * One event as a line of the action log, from the viewer's side ("Bob: 7♠ from their hand to
 * your waste", "You turned Q♦"). `ctx.piles` should be the position *before* the event, so that
 * a foundation is named by the suit it held. Returns null for events the log leaves out.
 */
export function eventWords(ev, ctx) {
  if (!ev || !ev.type) return null;
  const who = (seat) => playerWords(seat, ctx, true);
  const fault = ev.fault ? ` — a fault (${ev.fault})` : "";
  switch (ev.type) {
    case "CardMoved": {
      const opts = { actor: ev.seat, card: ev.card };
      const src = pileWords(ev.src, ctx, opts);
      const dst = pileWords(ev.dst, ctx, opts);
      return `${who(ev.seat)}: ${cardText(ev.card)} from ${src} to ${dst}${fault}`;
    }
    case "CompulsoryMovePlayed": {
      const opts = { card: ev.card };
      return `${cardText(ev.card)} goes from ${pileWords(ev.src, ctx, opts)} to ${pileWords(ev.dst, ctx, opts)}`;
    }
    case "HandCardTurned":
      return `${who(ev.seat)} turned ${cardText(ev.card)}${fault}`;
    case "WasteTurnedOver": {
      const their = whose(ev.seat, ctx, ev.seat);
      return `${who(ev.seat)} turned ${their} waste over: it is the hand again (${ev.count} cards)`;
    }
    case "CardDiscarded": {
      const auto = ev.auto ? ` (${TURN_END[ev.auto] ?? ev.auto})` : "";
      return `${who(ev.seat)} discarded ${cardText(ev.card)}${auto}${fault}`;
    }
    case "Passed":
      return `${who(ev.seat)} passed${fault}`;
    case "TurnEnded": {
      const next = ev.next_seat === ctx.viewer ? "Your turn" : `${who(ev.next_seat)}'s turn`;
      const why = TURN_END[ev.reason];
      return why && ev.reason !== "discard" && ev.reason !== "pass" ? `${next} (${why})` : next;
    }
    case "CrapetteCalled": {
      const caller = who(ev.caller);
      const calls = ev.caller === ctx.viewer ? "call" : "calls";
      if (ev.verdict === "right") {
        return `${caller} ${calls} Crapette! — right (${inWords(ev.rule, ctx)})`;
      }
      const penalty = ev.penalty ? "; the caller loses the next turn" : "";
      return `${caller} ${calls} Crapette! — wrong: that action broke no rule${penalty}`;
    }
    case "ActionVoided":
      return voidedWords(ev, ctx);
    case "DrawOffered":
      return `${who(ev.seat)} ${ev.seat === ctx.viewer ? "offer" : "offers"} a stalemate`;
    case "DrawAccepted":
      return `${who(ev.seat)} ${ev.seat === ctx.viewer ? "accept" : "accepts"} the stalemate`;
    case "TimeExpired":
      return `${who(ev.seat)} ran out of time`;
    case "MatchStarted":
      return `Match started: ${(ev.players ?? ctx.players ?? []).join(" v ")}`;
    case "GameStarted": {
      const reason = ev.first_player_reason ? ` (${inWords(ev.first_player_reason, ctx)})` : "";
      const starts = ev.first_player === ctx.viewer ? "you start" : `${who(ev.first_player)} starts`;
      return `Game ${(ev.game_index ?? 0) + 1} dealt; ${starts}${reason}`;
    }
    case "GameWon":
      return `${who(ev.winner)} ${ev.winner === ctx.viewer ? "win" : "wins"} the game${scoreWords(ev.score, ctx)}`;
    case "GameStalemated":
      return `Stalemate (${ev.reason})${scoreWords(ev.score, ctx)}`;
    case "GameResigned":
      return `${who(ev.seat)} resigned the game${scoreWords(ev.score, ctx)}`;
    case "MatchWon":
      return `${who(ev.winner)} ${ev.winner === ctx.viewer ? "win" : "wins"} the match ${(ev.totals ?? []).join("–")}`;
    default:
      return ev.type;
  }
}

function voidedWords(ev, ctx) {
  const owner = (seat) => whose(seat, ctx);
  if (ev.voided === "CardMoved" || ev.voided === "CompulsoryMovePlayed") {
    const opts = { card: ev.card };
    return `taken back: ${owner(ev.seat)} ${cardText(ev.card)} goes from ${pileWords(ev.dst, ctx, opts)} back to ${pileWords(ev.src, ctx, opts)}`;
  }
  if (ev.voided === "HandCardTurned") return `taken back: ${owner(ev.seat)} turned ${cardText(ev.card)} goes back to the hand`;
  if (ev.voided === "CardDiscarded") return `taken back: ${owner(ev.seat)} discard of ${cardText(ev.card)}`;
  if (ev.voided === "WasteTurnedOver") return `taken back: ${owner(ev.seat)} waste turned over`;
  if (ev.voided === "TurnEnded") return "the turn comes back";
  if (ev.voided === "Passed") return `taken back: ${owner(ev.seat)} pass`;
  return "an action is taken back";
}

function scoreWords(score, ctx) {
  if (!Array.isArray(score)) return "";
  const [a, b] = score;
  if (!a && !b) return ": no points";
  const seat = a > 0 ? 0 : 1;
  const pts = Math.max(a, b);
  const gets = seat === ctx.viewer ? "you score" : `${playerWords(seat, ctx)} scores`;
  return `: ${gets} ${pts} point${pts === 1 ? "" : "s"}`;
}

/** The pattern of a pile code, for checks that no player-facing text holds one. */
export const PILE_CODE_PATTERN = /\b([RHXW][01]|[TF][0-7])\b/;
