// Cards drawn with CSS and inline SVG suit symbols, so they stay crisp at any size: every length in
// the card is relative to the CSS variable --cw (the card width), set once on the board.

import { t } from "./i18n.js";

const SVG_NS = "http://www.w3.org/2000/svg";

// Suit shapes in a 100x100 box, drawn for this project.
const SUIT_SHAPES = {
  H: '<path d="M50,90 C22,66 6,50 6,31 C6,17 17,7 30,7 C39,7 46,12 50,20 C54,12 61,7 70,7 ' +
    'C83,7 94,17 94,31 C94,50 78,66 50,90 Z"/>',
  D: '<path d="M50,4 L86,50 L50,96 L14,50 Z"/>',
  S: '<path d="M50,5 C78,28 94,44 94,60 C94,73 84,81 72,81 C63,81 56,77 53,71 C54,82 58,89 ' +
    '66,95 L34,95 C42,89 46,82 47,71 C44,77 37,81 28,81 C16,81 6,73 6,60 C6,44 22,28 50,5 Z"/>',
  C: '<circle cx="50" cy="27" r="20"/><circle cx="27" cy="59" r="20"/>' +
    '<circle cx="73" cy="59" r="20"/><path d="M46,50 L54,50 C54,72 58,86 68,95 L32,95 ' +
    'C42,86 46,72 46,50 Z"/>',
};

/** A suit's name in the page's language ("spades", "pique"). */
export function suitName(suit) {
  return t(`suit.${suit}`);
}
const SUIT_GLYPH = { S: "♠", H: "♥", D: "♦", C: "♣" };
// A rank's letter in the page's language (A J Q K; French A V D R; Danish E Kn D K).
const rankText = (rank) => (rank === 1 || rank > 10 ? t(`card.short.${rank}`) : String(rank));
const RANK_OF = { A: 1, T: 10, J: 11, Q: 12, K: 13 };

/** Put the suit symbols into the page once, as <symbol>s every card can <use>. */
export function installSuitSprite(doc = document) {
  if (doc.getElementById("suit-sprite")) return;
  const svg = doc.createElementNS(SVG_NS, "svg");
  svg.id = "suit-sprite";
  svg.setAttribute("aria-hidden", "true");
  svg.style.display = "none";
  svg.innerHTML = Object.entries(SUIT_SHAPES)
    .map(([s, shape]) => `<symbol id="suit-${s}" viewBox="0 0 100 100">${shape}</symbol>`)
    .join("");
  doc.body.prepend(svg);
}

/** "7H/1" → {rank: 7, suit: "H", owner: 1, code: "7H"}; null stays null (a face-down card). */
export function parseCard(text) {
  if (text === null || text === undefined) return null;
  const m = /^([A2-9TJQK]|10)([SHDC])(?:\/([01]))?$/.exec(text);
  if (!m) throw new Error(`not a card: ${text}`);
  const rank = RANK_OF[m[1]] ?? Number(m[1]);
  return { rank, suit: m[2], owner: m[3] === undefined ? null : Number(m[3]), code: text };
}

export function isRed(suit) {
  return suit === "H" || suit === "D";
}

/** A card in words, for screen readers and titles: "7 of hearts (pack 2)". */
export function cardWords(card) {
  const c = typeof card === "string" ? parseCard(card) : card;
  if (!c) return t("card.face_down");
  const rank = c.rank === 1 || c.rank > 10 ? t(`card.rank.${c.rank}`) : String(c.rank);
  const words = t("card.words", { rank, suit: suitName(c.suit) });
  return c.owner === null ? words : t("card.pack", { card: words, pack: c.owner + 1 });
}

/** Short text of a card for logs and move lists: "7♥". */
export function cardShort(card) {
  const c = typeof card === "string" ? parseCard(card) : card;
  if (!c) return "?";
  return `${rankText(c.rank)}${SUIT_GLYPH[c.suit]}`;
}

function suitUse(suit, cls) {
  return `<svg class="${cls}" viewBox="0 0 100 100"><use href="#suit-${suit}"/></svg>`;
}

/**
 * A card element. `text` is "7H/1" (face up) or null (face down); `backOwner` picks the back colour
 * of a face-down card, whose owner the view does not tell (the pile's seat is the best guess).
 */
export function makeCard(text, backOwner = 0, doc = document) {
  const el = doc.createElement("div");
  const c = parseCard(text);
  if (!c) {
    el.className = `card back p${backOwner}`;
    el.setAttribute("role", "img"); // a picture with a name, not the text of its corners
    el.setAttribute("aria-label", t("card.face_down"));
    return el;
  }
  const owner = c.owner ?? 0;
  el.className = `card face ${isRed(c.suit) ? "red" : "black"} p${owner}`;
  el.dataset.card = text;
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", cardWords(c));
  const rank = rankText(c.rank);
  // The small corner suits are text (cheap to lay out); the big centre one is the SVG shape.
  const index = `<span class="rank">${rank}</span><span class="pip">${SUIT_GLYPH[c.suit]}</span>`;
  const centre =
    c.rank > 10
      ? `<span class="court">${rank}</span>${suitUse(c.suit, "court-pip")}`
      : suitUse(c.suit, "centre");
  // The corners' text is what the eye reads; a screen reader reads the card's name instead.
  el.innerHTML =
    `<span class="idx tl" aria-hidden="true">${index}</span>` +
    `<span class="idx br" aria-hidden="true">${index}</span>` +
    `<span aria-hidden="true">${centre}</span><span class="pack-mark"></span>`;
  return el;
}
