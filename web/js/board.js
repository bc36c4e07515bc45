// The table layout: each player's reserve, hand, turned hand card and waste in a tray near him, the
// houses in two columns and the eight foundations between them. The board is drawn for one seat at
// the bottom; the other seat's half is the same picture turned half a turn, so both players see
// their own houses T0/T4 nearest their reserve.

import { installSuitSprite, makeCard } from "./cards.js";
import { t } from "./i18n.js";

// Q: the second reserve, I and J the second and third hands of the Italian variants (hidden
// unless the view has them, rules.md §10).
const TRAY_PILES = ["R", "Q", "H", "I", "J", "X", "W"];
// The piles of a variant only: the empty table before the deal shows the classic ones.
const VARIANT_PILES = "QIJ";
// Width of a house column in card widths (CSS --house-span: narrower on a phone).
const DEFAULT_HOUSE_SPAN = 4.2;
const FAN_STEP = 0.3;
// The house's number stands at its outer end (in card widths): the fan stops short of it, so that
// "house 5" in the log can always be found on the board.
const HOUSE_TAG_SPAN = 0.45;
const FLIGHT_MS = 320; // one card's slide; the table shows the opponent's actions one at a time

/** Grid cell (row 0..3, column 0..3) and fan direction of each field pile, seat 0 at the bottom. */
function fieldCells() {
  const cells = {};
  for (let i = 0; i < 4; i++) {
    cells[`T${i}`] = { row: 3 - i, col: 0, fan: -1 }; // T0 nearest seat 0's reserve (bottom left)
    cells[`T${4 + i}`] = { row: i, col: 3, fan: 1 }; // T4 nearest seat 1's reserve (top right)
    cells[`F${i}`] = { row: i, col: 1, fan: 0 };
    cells[`F${4 + i}`] = { row: i, col: 2, fan: 0 };
  }
  return cells;
}
const FIELD = fieldCells();

// I and J, the second and third hands (rules.md §10), are hands as H is.
const PILE_KINDS = {
  R: "reserve",
  Q: "reserve",
  H: "hand",
  I: "hand",
  J: "hand",
  X: "turned",
  W: "waste",
  T: "house",
  F: "foundation",
};

export function pileKind(name) {
  return PILE_KINDS[name[0]];
}

/** The seat a pile belongs to (its face-down cards show that seat's back), or null if shared. */
export function pileSeat(name) {
  if ("RQHIJXW".includes(name[0])) return Number(name[1]);
  return null;
}

export class Board {
  /**
   * @param {HTMLElement} root  where the board is drawn
   * @param {{bottom?: number, animate?: boolean}} options
   */
  constructor(root, options = {}) {
    installSuitSprite(root.ownerDocument);
    this.root = root;
    this.bottom = options.bottom ?? 0;
    this.animate = options.animate ?? false;
    this.piles = new Map(); // name → element
    this.keys = new Map(); // name → last drawn content, to skip piles that did not change
    this.marks = new Map(); // class → Set of pile names
    this.lastView = null;
    // Each face-up card exists once on the table, so its element is made once and moved around:
    // a jump across a replay then only re-parents elements.
    this.faces = new Map();
    this.build();
    // Crossing the phone/desktop width changes the house width: the fans are redrawn to fit.
    root.ownerDocument.defaultView?.addEventListener("resize", () => {
      if (this.readHouseSpan() && this.lastView) this.render(this.lastView);
    });
  }

  /** Read --house-span from the style sheet; true when it changed (every fan must be redrawn). */
  readHouseSpan() {
    const span = parseFloat(getComputedStyle(this.root).getPropertyValue("--house-span"));
    if (!span || span === this.houseSpan) return false;
    this.houseSpan = span;
    this.keys.clear();
    return true;
  }

  /** The element of a card: a face-up card's own (reset), or a new back. */
  card(text, owner) {
    if (text === null) return makeCard(null, owner, this.root.ownerDocument);
    let el = this.faces.get(text);
    if (el && el.isConnected && el.parentElement?.dataset.drawn === String(this.pass)) {
      // Already placed in this redraw: a view naming one card twice is drawn as it says.
      return makeCard(text, owner, this.root.ownerDocument);
    }
    if (!el) {
      el = makeCard(text, owner, this.root.ownerDocument);
      el.dataset.base = el.className;
      this.faces.set(text, el);
    } else {
      el.className = el.dataset.base;
      el.style.cssText = "";
    }
    return el;
  }

  /** Which seat sits at the bottom (a spectator sees seat 0 there). */
  setBottom(seat) {
    if (seat === this.bottom) return;
    this.bottom = seat;
    this.build();
    if (this.lastView) this.render(this.lastView);
  }

  build() {
    const doc = this.root.ownerDocument;
    this.root.innerHTML = "";
    this.marks.clear();
    this.root.classList.add("board");
    this.piles.clear();
    this.keys.clear();
    this.houseSpan = undefined;
    const top = 1 - this.bottom;
    const trays = {};
    for (const [seat, where] of [
      [top, "top"],
      [this.bottom, "bottom"],
    ]) {
      const tray = doc.createElement("div");
      tray.className = `tray ${where}`;
      tray.dataset.seat = String(seat);
      for (const p of TRAY_PILES) tray.append(this.makePile(`${p}${seat}`, 0));
      const info = doc.createElement("div");
      info.className = "seat-info";
      info.dataset.seat = String(seat);
      tray.append(info);
      trays[where] = tray;
    }
    const field = doc.createElement("div");
    field.className = "field";
    const flip = this.bottom === 1;
    for (const [name, cell] of Object.entries(FIELD)) {
      const row = flip ? 3 - cell.row : cell.row;
      const col = flip ? 3 - cell.col : cell.col;
      const fan = flip ? -cell.fan : cell.fan;
      const el = this.makePile(name, fan);
      el.style.gridRow = String(row + 1);
      el.style.gridColumn = String(col + 1);
      field.append(el);
    }
    this.root.append(trays.top, field, trays.bottom);
    if (this.root.isConnected) this.readHouseSpan();
  }

  makePile(name, fan) {
    const el = this.root.ownerDocument.createElement("div");
    const kind = pileKind(name);
    el.className = `pile ${kind}`;
    if (fan) el.classList.add(fan < 0 ? "fan-left" : "fan-right");
    el.dataset.pile = name;
    el.dataset.fan = String(fan);
    // A variant's pile (second reserve, hands I and J) stays hidden until a view has it: a
    // classic table waiting for its guest shows only the classic piles (issue 39).
    el.hidden = VARIANT_PILES.includes(name[0]);
    // Piles are named in words (never by their code): "house 3", "foundation", "reserve".
    const label =
      kind === "house"
        ? t("pile.house", { n: Number(name.slice(1)) + 1 })
        : kind === "foundation"
          ? ""
          : t(`slot.${name[0]}`);
    // The longest word sets the label's size: a long one ("KÄÄNNETTY") shrinks to fit the slot.
    const longest = Math.max(1, ...label.split(/\s+/).map((word) => word.length));
    el.innerHTML = `<span class="slot"><span class="slot-label">${label}</span></span>`;
    // Set through the CSSOM: the pages' policy (server/entrypoints/security.py) refuses inline style attributes.
    el.querySelector(".slot-label").style.setProperty("--label-chars", String(longest));
    // Always-visible names, for piles a sentence names and a card may cover: each house's number,
    // and the letters H, I, J of three hands (shown only with three, rules.md §10).
    if (kind === "house" || kind === "hand") {
      const tag = this.root.ownerDocument.createElement("span");
      tag.className = kind === "house" ? "pile-tag house-no" : "pile-tag hand-letter";
      tag.textContent = kind === "house" ? String(Number(name.slice(1)) + 1) : name[0];
      tag.setAttribute("aria-hidden", "true"); // the pile's label says it in words
      el.append(tag);
    }
    el.setAttribute("aria-label", label || t("pile.F"));
    this.piles.set(name, el);
    return el;
  }

  pile(name) {
    return this.piles.get(name);
  }

  /** Seat info element (name, clock, counts) for a seat, drawn by the page. */
  seatInfo(seat) {
    return this.root.querySelector(`.seat-info[data-seat="${seat}"]`);
  }

  /** Draw every pile of a view (piles bottom→top, null = face down); returns the card flights
   * started (Animation objects), so that a caller can wait for them to end. */
  render(view) {
    const before = this.animate ? this.cardRects() : null;
    if (this.houseSpan === undefined) this.readHouseSpan();
    this.pass = (this.pass ?? 0) + 1;
    this.lastView = view;
    // Before the deal there are no piles at all: show the empty table.
    const piles = view.piles && Object.keys(view.piles).length ? view.piles : null;
    this.root.classList.toggle("three-hands", Boolean(piles && "I0" in piles));
    for (const [name, el] of this.piles) {
      // The empty table before the deal shows the classic piles (no second reserve or hands).
      const cards = piles ? piles[name] : VARIANT_PILES.includes(name[0]) ? undefined : [];
      el.hidden = cards === undefined; // a pile the ruleset does not use (2 houses, 1 reserve, 1 hand)
      if (cards === undefined) continue;
      const down = view.face_down?.[name] ?? null;
      const key = cards.join(",") + "|" + cards.length + "|" + down;
      if (this.keys.get(name) === key) continue;
      this.keys.set(name, key);
      this.drawPile(name, el, cards, down);
    }
    return before ? this.flyFrom(before) : [];
  }

  /**
   * Draw one pile. `down` (a finished match's replay only) is how many of its bottom cards are
   * face down although the view reveals them: those are drawn face up, marked "peek".
   */
  drawPile(name, el, cards, down = null) {
    el.dataset.drawn = String(this.pass);
    for (const old of el.querySelectorAll(":scope > .card, :scope > .count")) old.remove();
    const kind = pileKind(name);
    const owner = pileSeat(name) ?? 0;
    el.dataset.count = String(cards.length);
    const topText = cards.length ? cards[cards.length - 1] : undefined;
    el.dataset.top = topText ?? "";
    if (kind === "house") {
      const fan = Number(el.dataset.fan);
      const n = cards.length;
      const span = this.houseSpan ?? DEFAULT_HOUSE_SPAN;
      const step = n > 1 ? Math.min(FAN_STEP, (span - 1 - HOUSE_TAG_SPAN) / (n - 1)) : 0;
      cards.forEach((text, i) => {
        const card = this.card(text, owner);
        if (down !== null && i < down) card.classList.add("peek");
        const offset = i * step;
        if (fan < 0) card.style.right = `calc(var(--cw) * ${offset})`;
        else card.style.left = `calc(var(--cw) * ${offset})`;
        card.style.zIndex = String(i + 1);
        el.append(card);
      });
    } else if (cards.length) {
      // Only the top matters for play; one card under it shows that the pile has depth.
      if (cards.length > 1 && kind !== "turned") {
        const under = this.card(cards[cards.length - 2], owner);
        under.classList.add("under");
        el.append(under);
      }
      const top = this.card(topText, owner);
      if (down !== null && cards.length <= down) top.classList.add("peek");
      el.append(top);
    }
    if (kind !== "house" && kind !== "foundation" && kind !== "turned") {
      const faceDown = down ?? cards.filter((c) => c === null).length;
      const badge = this.root.ownerDocument.createElement("span");
      badge.className = "count";
      badge.textContent = String(cards.length);
      badge.title = t("board.count", { count: cards.length, down: faceDown });
      el.append(badge);
    }
  }

  /** Highlight piles: `cls` is one of selected, target, cursor-from, cursor-to, last-from,
   * last-to, fault, playable. */
  mark(cls, names) {
    const old = this.marks.get(cls) ?? new Set();
    for (const n of old) this.piles.get(n)?.classList.remove(cls);
    const now = new Set(names);
    for (const n of now) this.piles.get(n)?.classList.add(cls);
    this.marks.set(cls, now);
  }

  /** The pile under a page point (for drag and drop), or null. */
  pileAt(x, y) {
    const doc = this.root.ownerDocument;
    for (const el of doc.elementsFromPoint(x, y)) {
      if (el.classList.contains("dragging")) continue;
      const pile = el.closest("[data-pile]");
      if (pile && this.root.contains(pile)) return pile.dataset.pile;
    }
    return null;
  }

  cardRects() {
    const rects = new Map();
    for (const el of this.root.querySelectorAll(".card.face:not(.under)")) {
      rects.set(el.dataset.card, el.getBoundingClientRect());
    }
    return rects;
  }

  /** Slide each face-up card that changed place from where it was (moves and voided moves). */
  flyFrom(before) {
    const flights = [];
    for (const el of this.root.querySelectorAll(".card.face:not(.under)")) {
      const was = before.get(el.dataset.card);
      if (!was) continue;
      const now = el.getBoundingClientRect();
      const dx = was.left - now.left;
      const dy = was.top - now.top;
      if (Math.abs(dx) < 2 && Math.abs(dy) < 2) continue;
      flights.push(
        el.animate(
          [
            { transform: `translate(${dx}px, ${dy}px)`, zIndex: 500 },
            { transform: "translate(0, 0)", zIndex: 500 },
          ],
          { duration: FLIGHT_MS, easing: "ease-out" },
        ),
      );
    }
    return flights;
  }
}
