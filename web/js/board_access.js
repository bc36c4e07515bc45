// The board for keyboards and screen readers: ARIA roles for the table, each player's cards and
// the middle; the top card of every pile (or the empty pile's slot) takes keyboard focus and is
// labelled in words ("7 of spades, your reserve, playable"); Enter or Space on it does what a
// click does. Nothing here draws: it follows the board's DOM (a MutationObserver on the piles'
// cards and classes), so the board's drawing code stays as it is.

import { cardWords, parseCard } from "./cards.js";
import { pileKind } from "./board.js";
import { t } from "./i18n.js";
import { pileWords, shownName } from "./words.js";

/** "7 of spades" (the pack does not matter to a player reading the table). */
export function cardName(text) {
  const c = parseCard(text);
  return cardWords(c ? { ...c, owner: null } : null);
}

export class BoardAccess {
  /**
   * @param {import("./board.js").Board} board
   * @param {() => {seat: number|null, names: string[]}} people  who looks, and the players' names
   * @param {((pile: string) => void) | null} activate  Enter/Space on a pile; null: look only
   */
  constructor(board, people, activate = null) {
    this.board = board;
    this.people = people;
    this.activate = activate;
    this.focusedPile = null;
    this.queued = false;
    const root = board.root;
    root.setAttribute("role", "region"); // a landmark inside the page's <main>
    root.setAttribute("aria-label", t("access.table"));
    root.addEventListener("focusin", (e) => {
      this.focusedPile = e.target.closest?.("[data-pile]")?.dataset.pile ?? null;
    });
    if (activate) root.addEventListener("keydown", (e) => this.onKey(e));
    new MutationObserver(() => this.queue()).observe(root, {
      childList: true,
      subtree: true,
      attributes: true,
      attributeFilter: ["class", "hidden"],
    });
    this.label();
  }

  queue() {
    if (this.queued) return;
    this.queued = true;
    queueMicrotask(() => {
      this.queued = false;
      this.label();
    });
  }

  onKey(e) {
    if (e.key !== "Enter" && e.key !== " ") return;
    const pile = e.target.closest?.("[data-pile]");
    if (!pile || !e.target.matches(".focus-target") || this.people().seat === null) return;
    e.preventDefault();
    e.stopPropagation(); // the page's own Enter (play the action chosen with ↑/↓) is not meant
    this.activate(pile.dataset.pile);
  }

  /** Whose pile, in the looker's words: "your reserve", "Ann's waste", "house 3". */
  pileWords(name) {
    const { seat, names } = this.people();
    if (pileKind(name) === "foundation") return t("access.foundation", { n: Number(name.slice(1)) + 1 });
    return pileWords(name, { viewer: seat, players: names ?? [], piles: this.board.lastView?.piles });
  }

  /** Roles and labels of everything on the board, redone after each change of its DOM. */
  label() {
    const root = this.board.root;
    const { seat, names } = this.people();
    for (const tray of root.querySelectorAll(":scope > .tray")) {
      const owner = Number(tray.dataset.seat);
      tray.setAttribute("role", "group");
      const label =
        owner === seat
          ? t("access.your_cards")
          : t("access.players_cards", { player: shownName(names?.[owner]) ?? t("player.n", { n: owner + 1 }) });
      tray.setAttribute("aria-label", label);
    }
    root.querySelector(":scope > .field")?.setAttribute("role", "group");
    root.querySelector(":scope > .field")?.setAttribute("aria-label", t("access.field"));
    let refocus = null;
    for (const [name, el] of this.board.piles) {
      const target = this.labelPile(name, el);
      if (name === this.focusedPile) refocus = target;
    }
    // A card that moved took the focus with it out of the page: give it back to its pile.
    const active = document.activeElement;
    if (refocus && (!active || active === document.body) && this.focusedPile) refocus.focus();
  }

  /**
   * Label one pile; returns the element that takes the focus: a `.focus-target` laid over its
   * top card (else over its empty slot). It is a layer of its own so that its name is the card's
   * name in words, not the corners' "7♠ 7♠" (a name must contain a control's visible text).
   */
  labelPile(name, el) {
    const kind = pileKind(name);
    const words = this.pileWords(name);
    el.setAttribute("role", "group");
    el.setAttribute("aria-label", words);
    const cards = [...el.querySelectorAll(":scope > .card")];
    const top = cards.length ? cards[cards.length - 1] : null;
    const slot = el.querySelector(":scope > .slot");
    el.querySelector(":scope > .count")?.setAttribute("aria-hidden", "true"); // in the label
    const holder = top ?? slot;
    for (const other of [...cards, slot]) {
      if (!other || other === holder) continue;
      other.setAttribute("aria-hidden", "true");
      other.querySelector(":scope > .focus-target")?.remove();
    }
    if (!holder) return null;
    holder.removeAttribute("aria-hidden");
    // The top card's own name ("7 of spades (pack 2)") gives way to the layer's fuller one.
    holder.removeAttribute("role");
    holder.removeAttribute("aria-label");
    holder.querySelector(".slot-label")?.setAttribute("aria-hidden", "true");
    let target = holder.querySelector(":scope > .focus-target");
    if (!target) {
      target = document.createElement("span");
      target.className = "focus-target";
      holder.append(target);
    }
    const states = [];
    if (el.classList.contains("selected")) states.push(t("access.picked_up"));
    if (el.classList.contains("playable")) states.push(t("access.playable"));
    if (el.classList.contains("target")) states.push(t("access.target"));
    const count = Number(el.dataset.count ?? cards.length);
    let text;
    if (top) {
      const what = top.classList.contains("back") ? t("card.face_down") : cardName(top.dataset.card);
      text = [what, words, ...states].join(", ");
      if (kind === "house" && cards.length > 1) {
        const under = cards.slice(0, -1).map((c) => cardName(c.dataset.card ?? null));
        text += t("access.on", { cards: under.reverse().join(", ") });
      } else if (kind !== "house" && kind !== "foundation" && count > 1) {
        text += t("access.count", { count });
      }
    } else {
      text = [t("access.empty", { pile: words }), ...states].join(", ");
    }
    // A player's cards are buttons; a spectator's (and a replay's) are pictures, still in the
    // tab order so that every card can be read.
    const interactive = this.activate !== null && this.people().seat !== null;
    target.setAttribute("role", interactive ? "button" : "img");
    if (target.getAttribute("aria-label") !== text) target.setAttribute("aria-label", text);
    if (el.hidden) target.removeAttribute("tabindex");
    else target.setAttribute("tabindex", "0");
    return target;
  }
}
