// Piles, cards and events in a player's words and language, from the viewer's side: "your
// reserve", "Bob's waste", "house 3", "the ♠ foundation", "10♥". No text a player reads names a
// pile by its code (R0, X1, W0, T3, F5, H1): those stay in records, the API and the replay's
// notation titles. The server sends codes (a refusal's `reason` and `params`, an event's rule and
// reason); the catalogues (web/i18n) say them. An English sentence the server wrote that has no
// code yet is shown with `inWords` rewriting its codes.

import { cardShort, parseCard } from "./cards.js";
import { has, t } from "./i18n.js";

const SUIT_GLYPH = { S: "♠", H: "♥", D: "♦", C: "♣" };

/**
 * What a sentence needs to name things: the viewer's seat (null for a spectator), the players'
 * names, and the piles of the position (to name a foundation by its suit).
 * @typedef {{viewer: number|null, players: string[], piles?: Object<string, (string|null)[]>}} Ctx
 */

/** A bot's strength in the page's language ("random" → "aléatoire"), else as the server names it. */
export function botWord(bot) {
  return has(`bot.${bot}`) ? t(`bot.${bot}`) : String(bot);
}

/** A preset's name in the page's language ("italian-three-hands" → "Italienne, trois mains"). */
export function presetName(preset) {
  return has(`preset.${preset}`) ? t(`preset.${preset}`) : String(preset);
}

/**
 * A player's name as shown: the server names a bot's seat "<strength> bot" ("random bot"), which
 * is said in the page's language ("robot aléatoire"); a person's name is shown as typed.
 */
export function shownName(name) {
  const m = /^(\w+) bot$/.exec(String(name ?? ""));
  return m && has(`bot.${m[1]}`) ? t("bot.named", { bot: botWord(m[1]) }) : name;
}

/** A seed or its commitment as the header shows it: its first 12 hex digits, as a short
 *  fingerprint ("9f3c2a71b0d4…"); the whole of it goes in the element's title. A 64-digit
 *  number cut by the header's width would read as cut text (issue 39). */
export function fingerprint(hex) {
  const text = String(hex ?? "");
  return text.length > 12 ? `${text.slice(0, 12)}…` : text;
}

/** A player's name from the viewer's side: "you" for the viewer himself. */
export function playerWords(seat, ctx, capital = false) {
  if (seat === null || seat === undefined) return t("player.someone");
  if (ctx.viewer === seat) return capital ? t("player.You") : t("player.you");
  return playerName(seat, ctx);
}

function playerName(seat, ctx) {
  return shownName(ctx.players?.[seat]) || t("player.n", { n: seat + 1 });
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
  const m = /^([RQHIJXWTF])([0-7])$/.exec(pile ?? "");
  if (!m) return t("pile.unknown");
  const [, kind, digit] = m;
  const n = Number(digit);
  if (kind === "T") return t("pile.house", { n: n + 1 });
  if (kind === "F") {
    const suit = foundationSuit(pile, ctx, card);
    return suit ? t("pile.foundation", { suit: SUIT_GLYPH[suit] }) : t("pile.foundation_empty");
  }
  // Three hands (rules.md §10) are named by their letters, as the board labels them: "your hand I".
  const named = "IJ".includes(kind) || (kind === "H" && threeHands(n, ctx));
  const key = named ? "pile.hand_named" : `pile.${kind}`;
  const letter = { letter: kind };
  if (n === ctx.viewer) return t(`${key}.yours`, letter);
  if (actor !== undefined && actor !== null && n === actor) return t(`${key}.theirs`, letter);
  return t(`${key}.players`, { ...letter, player: playerName(n, ctx) });
}

/** Whether seat `n` has three hands in this position (its second hand I is dealt). */
export function threeHands(n, ctx) {
  return Boolean(ctx.threeHands ?? (ctx.piles && `I${n}` in ctx.piles));
}

/** A card in short words: "7♠", "10♥" (French "R♠"); a hidden card is "a card". */
export function cardText(text) {
  if (!text) return t("card.hidden");
  try {
    return cardShort(text);
  } catch {
    return t("card.hidden");
  }
}

const PILE_CODE = /\b([RQHIJXW][01]|[TF][0-7])\b/g;
const CARD_CODE = /\b(10|[A2-9TJQK])([SHDC])(?:\/[01])?\b/g;
const SEAT = /\bseat ([01])\b/g;

/**
 * Rewrite a sentence the server wrote so that it names no pile by its code: "the top of T3 is
 * 7H" → "the top of house 4 is 7♥", "seat 1 cut higher" → "Bob cut higher". For the few texts
 * that have no code yet (a server's own error); everything else is said from codes.
 */
export function inWords(text, ctx) {
  if (!text) return "";
  return String(text)
    .replace(PILE_CODE, (code) => pileWords(code, ctx))
    .replace(CARD_CODE, (whole) => cardText(whole))
    .replace(SEAT, (_, s) => playerWords(Number(s), ctx));
}

/** The params of a refusal or rule in words: cards short, piles from the viewer's side. */
function paramWords(params, ctx) {
  const out = {};
  for (const [key, value] of Object.entries(params ?? {})) {
    if (["card", "top", "need"].includes(key)) out[key] = cardText(value);
    else if (key === "pile") out[key] = pileWords(value, ctx, { card: params.card });
    else out[key] = value;
  }
  return out;
}

/** Why the server refused, in the page's language: from its `reason` and `params`, else its
 * `code`, else its English message. */
export function reasonWords(msg, ctx) {
  const key = `refusal.${msg?.reason}`;
  if (msg?.reason && has(key)) return t(key, paramWords(msg.params, ctx));
  const code = `refusal.code.${msg?.code}`;
  if (msg?.code && msg.code !== "refused" && has(code)) return t(code);
  return inWords(msg?.message ?? msg?.code ?? "", ctx);
}

/** A refusal from the server, in words: uses the move's parameters when the server sent them. */
export function refusalWords(msg, ctx) {
  const reason = reasonWords(msg, ctx);
  const p = msg?.params;
  if (p?.from && p?.to) {
    const card = cardText(p.card);
    const from = pileWords(p.from, ctx, { card: p.card });
    const to = pileWords(p.to, ctx, { card: p.card });
    return t("refusal.move", { card, from, to, reason });
  }
  return t("refusal.sentence", { reason: capital(reason) }).replace(/\.\.$/, ".");
}

export function capital(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

/** A rule code of the domain ("priority: foundation first") as a word (its catalogue key). */
function ruleKey(rule) {
  return String(rule ?? "")
    .replace(/\W+/g, "_")
    .replace(/^_|_$/g, "")
    .toLowerCase();
}

/**
 * A priority rule broken (a fault) or caught (a right call), in words. A rule that names the
 * offender's pile says it from the reader's side: "your reserve" to the offender himself,
 * "their reserve" in a sentence about him (`actor`, as pileWords), else "Bob's reserve".
 * `offender` unknown: the rule's plain form.
 */
export function ruleWords(rule, ctx, { offender, actor } = {}) {
  const key = `rule.${ruleKey(rule)}`;
  if (!has(key)) return inWords(rule, ctx);
  if (offender === undefined || offender === null || offender === ctx.viewer) return t(key);
  if (offender === actor && has(`${key}.theirs`)) return t(`${key}.theirs`);
  if (has(`${key}.players`)) return t(`${key}.players`, { player: playerName(offender, ctx) });
  return t(key);
}

/** One line of the end-of-game list of faults: the action (`ev`, when known), the rule it
 * broke from the reader's side, and whether it was called. */
export function faultLineWords(fault, ev, ctx) {
  const what = ev ? eventWords({ ...ev, fault: null }, ctx) : t("end.an_action");
  const actor = ev ? fault.seat : undefined; // the sentence names the offender
  return t("end.fault_line", {
    what: capital(what),
    rule: ruleWords(fault.rule, ctx, { offender: fault.seat, actor }),
    state: fault.missed ? t("end.not_called") : t("end.called"),
  });
}

// One catalogue key per member of the domain's closed sets of reasons (domain/events.py:
// TurnEndReason, WinReason, StalemateReason), by event type; written as JSON between the two
// markers so that tests/unit/web/test_reason_words.py reads it and checks it against the domain
// and against every catalogue, both ways.
// reason keys: begin
const REASON_KEYS = {
  "TurnEnded": {
    "discard": "turn_end.discard",
    "pass": "turn_end.pass",
    "hand card lock": "turn_end.hand_card_lock",
    "time": "turn_end.time",
    "crapette": "turn_end.crapette",
    "wrong calls": "turn_end.wrong_calls"
  },
  "GameWon": {
    "all cards played": "reason.all_cards_played"
  },
  "GameStalemated": {
    "agreed": "reason.agreed",
    "400 turns without a foundation build": "reason.turns",
    "both players went through their hands without progress": "reason.no_progress"
  }
};
// reason keys: end

function turnEndWords(reason) {
  const key = Object.hasOwn(REASON_KEYS.TurnEnded, reason) ? REASON_KEYS.TurnEnded[reason] : null;
  return key ? t(key) : reason;
}

/** Why a game ended ("all cards played", "400 turns without a foundation build"). */
export function resultWords(result, ctx) {
  const reason = String(result?.reason ?? "");
  if (result?.kind === "resign") return t("reason.resigned", { who: playerWords(1 - result.winner, ctx, true) });
  const key = Object.hasOwn(REASON_KEYS.GameWon, reason)
    ? REASON_KEYS.GameWon[reason]
    : Object.hasOwn(REASON_KEYS.GameStalemated, reason) ? REASON_KEYS.GameStalemated[reason] : null;
  if (key) return t(key, { n: /^(\d+) turns/.exec(reason)?.[1] });
  return inWords(reason, ctx);
}

/** Why a player starts a game (GameStarted.first_player_reason), from its known forms. */
export function firstPlayerWords(reason, ctx) {
  const text = String(reason ?? "");
  const who = (seat) => playerWords(Number(seat), ctx);
  // "R top"/"Q top" compare the first and second reserves of two (rules §10).
  let m = /^(lower|higher) (reserve top|R top|Q top|T(\d)\/T(\d)): (\S+) against (\S+)$/.exec(text);
  if (m) {
    const tops = { "reserve top": "first.reserve_top", "R top": "first.first_reserve_top", "Q top": "first.second_reserve_top" };
    const what = m[3] ? t("first.houses", { a: Number(m[3]) + 1, b: Number(m[4]) + 1 }) : t(tops[m[2]]);
    return t(`first.${m[1]}`, { what, mine: cardText(m[5]), theirs: cardText(m[6]) });
  }
  m = /^high cut \(round (\d+)\): (\S+) against (\S+), seat ([01]) cut higher$/.exec(text);
  if (m) {
    const rank = (r) => (/^[AJQK]$/.test(r) ? t(`card.short.${{ A: 1, J: 11, Q: 12, K: 13 }[r]}`) : r === "T" ? "10" : r);
    return personal("first.cut", Number(m[4]), ctx, { round: m[1], mine: rank(m[2]), theirs: rank(m[3]) }, false);
  }
  m = /^alternate: seat ([01]) started the previous game$/.exec(text);
  if (m) return personal("first.alternate", Number(m[1]), ctx, {}, false);
  m = /^alternate, first game by (.*)$/.exec(text);
  if (m) return t("first.alternate_first", { why: firstPlayerWords(m[1], ctx) });
  m = /all tie; the seed's coin gives seat ([01])$/.exec(text);
  if (m) return t("first.tie", { who: who(m[1]) });
  if (/explicit packs: seat 0 starts$/.test(text)) return personal("first.explicit", 0, ctx, {}, false);
  if (text === "set up from a position") return t("first.set_up");
  return inWords(text, ctx);
}

/** "You …" when the viewer acts (a message of its own, for the verb's person), else "Bob …". */
function personal(key, seat, ctx, params = {}, capital = true) {
  if (seat === ctx.viewer && seat !== null && seat !== undefined) return t(`${key}.you`, params);
  return t(key, { ...params, who: playerWords(seat, ctx, capital) });
}

/**
 * One event as a line of the action log, from the viewer's side ("Bob: 7♠ from their hand to
 * your waste", "You turned Q♦"). `ctx.piles` should be the position *before* the event, so that
 * a foundation is named by the suit it held. Returns null for events the log leaves out.
 */
export function eventWords(ev, ctx) {
  if (!ev || !ev.type) return null;
  const who = (seat) => playerWords(seat, ctx, true);
  const faulty = (text) =>
    ev.fault ? t("log.fault", { text, rule: ruleWords(ev.fault, ctx, { offender: ev.seat, actor: ev.seat }) }) : text;
  switch (ev.type) {
    case "CardMoved": {
      const opts = { actor: ev.seat, card: ev.card };
      const from = pileWords(ev.src, ctx, opts);
      const to = pileWords(ev.dst, ctx, opts);
      return faulty(t("log.moved", { who: who(ev.seat), card: cardText(ev.card), from, to }));
    }
    case "CompulsoryMovePlayed": {
      const opts = { card: ev.card };
      const from = pileWords(ev.src, ctx, opts);
      const to = pileWords(ev.dst, ctx, opts);
      return t("log.compulsory", { card: cardText(ev.card), from, to });
    }
    case "HandCardTurned":
      if (ev.hand || threeHands(ev.seat, ctx)) {
        // One of three hands (rules.md §10): say which, H as well (the event names only I and J).
        const pile = pileWords(ev.hand ?? `H${ev.seat}`, ctx, { actor: ev.seat });
        return faulty(personal("log.turned_from", ev.seat, ctx, { card: cardText(ev.card), pile }));
      }
      return faulty(personal("log.turned", ev.seat, ctx, { card: cardText(ev.card) }));
    case "WasteTurnedOver":
      return personal("log.waste_over", ev.seat, ctx, { count: ev.count });
    case "CardDiscarded": {
      const card = cardText(ev.card);
      const text = ev.auto
        ? personal("log.discarded_auto", ev.seat, ctx, { card, why: turnEndWords(ev.auto) })
        : personal("log.discarded", ev.seat, ctx, { card });
      return faulty(text);
    }
    case "Passed":
      return faulty(personal("log.passed", ev.seat, ctx));
    case "TurnEnded": {
      const turn = ev.next_seat === ctx.viewer ? t("log.your_turn") : t("log.their_turn", { who: who(ev.next_seat) });
      const plain = !ev.reason || ev.reason === "discard" || ev.reason === "pass";
      return plain ? turn : t("log.turn_why", { turn, why: turnEndWords(ev.reason) });
    }
    case "CrapetteCalled": {
      if (ev.verdict === "right") {
        return personal("log.call_right", ev.caller, ctx, {
          rule: ruleWords(ev.rule, ctx, { offender: 1 - ev.caller, actor: ev.caller }),
        });
      }
      const text = personal("log.call_wrong", ev.caller, ctx);
      return ev.penalty ? t("log.call_penalty", { text }) : text;
    }
    case "ActionVoided":
      return voidedWords(ev, ctx);
    case "DrawOffered":
      return personal("log.draw_offered", ev.seat, ctx);
    case "DrawAccepted":
      return personal("log.draw_accepted", ev.seat, ctx);
    case "TimeExpired":
      return personal("log.time_out", ev.seat, ctx);
    case "MatchStarted":
      return t("log.match_started", { players: (ev.players ?? ctx.players ?? []).map(shownName).join(" – ") });
    case "GameStarted": {
      const starts = ev.first_player === ctx.viewer ? t("log.you_start") : t("log.starts", { who: who(ev.first_player) });
      const n = (ev.game_index ?? 0) + 1;
      if (!ev.first_player_reason) return t("log.game_dealt", { n, starts });
      return t("log.game_dealt_why", { n, starts, why: firstPlayerWords(ev.first_player_reason, ctx) });
    }
    case "GameWon":
      return personal("log.game_won", ev.winner, ctx, { score: scoreWords(ev.score, ctx) });
    case "GameStalemated":
      return t("log.stalemate", { why: resultWords({ reason: ev.reason }, ctx), score: scoreWords(ev.score, ctx) });
    case "GameResigned":
      return personal("log.resigned", ev.seat, ctx, { score: scoreWords(ev.score, ctx) });
    case "MatchWon": {
      // The winner's total first ("Bob wins the match 182–0"), whichever seat he had.
      const totals = (ev.winner === 1 ? [...(ev.totals ?? [])].reverse() : ev.totals ?? []).join("–");
      if (ev.abandoned_by !== undefined && ev.abandoned_by !== null) {
        // Abandoned (docs/spec/rules.md §8): "Ann abandoned the match: Bob wins it 85–0"; or
        // abandoned for him, the win claimed while he was away: "Ann was away: Bob claimed…".
        const key = ev.claimed ? "log.match_claimed" : "log.match_abandoned";
        if (ev.winner === ctx.viewer) return t(`${key}.to_you`, { who: who(ev.abandoned_by), totals });
        return personal(key, ev.abandoned_by, ctx, { winner: playerName(ev.winner, ctx), totals });
      }
      return personal("log.match_won", ev.winner, ctx, { totals });
    }
    // A rotation table's people (docs/spec/rules.md §10): named, never by seat.
    case "PlayerQueued":
      return t("log.queued", { who: shownName(ev.name) });
    case "PlayerLeftQueue":
      return t("log.left_queue", { who: shownName(ev.name) });
    case "SeatsRotated":
      return t("log.seats_rotated", { left: shownName(ev.left), entered: shownName(ev.entered), n: ev.seat + 1 });
    default:
      return ev.type;
  }
}

function voidedWords(ev, ctx) {
  const card = cardText(ev.card);
  if (ev.voided === "CardMoved" || ev.voided === "CompulsoryMovePlayed") {
    const opts = { card: ev.card };
    return t("log.voided_move", { card, from: pileWords(ev.dst, ctx, opts), to: pileWords(ev.src, ctx, opts) });
  }
  if (ev.voided === "HandCardTurned") {
    // Back on the hand it came from (one of three, rules.md §10).
    const pile = pileWords(ev.src ?? `H${ev.seat}`, ctx, { actor: ev.seat });
    return t("log.voided_turn", { card, pile });
  }
  if (ev.voided === "CardDiscarded") return t("log.voided_discard", { card });
  if (ev.voided === "WasteTurnedOver") return t("log.voided_waste");
  if (ev.voided === "TurnEnded") return t("log.voided_turn_end");
  if (ev.voided === "Passed") return t("log.voided_pass");
  return t("log.voided");
}

function scoreWords(score, ctx) {
  if (!Array.isArray(score)) return "";
  const [a, b] = score;
  if (!a && !b) return t("log.no_points");
  const seat = a > 0 ? 0 : 1;
  const count = Math.max(a, b);
  if (seat === ctx.viewer) return t("log.scores.you", { count });
  return t("log.scores", { who: playerWords(seat, ctx), count });
}
