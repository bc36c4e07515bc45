// How a player tells the table what to do: drag and drop, click-then-click, keyboard and buttons.
// Legal targets are highlighted from `view.legal`, but any attempt is sent to the server, so an
// illegal one comes back with the server's reason instead of silently doing nothing.

import { t } from "./i18n.js";
import { cardText, pileWords } from "./words.js";

const DRAG_START_PX = 6;
const KEY_ACTIONS = { t: "turn", d: "discard", p: "pass", c: "call", o: "offer-draw", h: "hint" };
const PLAYABLE_KEY = "crapette:show-playable:"; // + enforcement: the player's own choice

export class Controls {
  constructor(page) {
    this.page = page;
    this.board = page.board;
    this.selected = null; // source pile of a click-then-click move
    this.cursor = -1; // index into the legal list chosen with the arrow keys
    this.legal = [];
    this.sources = new Set(); // piles whose top card has a legal move in the newest view
    this.choices = []; // what ↑/↓ step through: the legal actions, one Ace move per source
    this.drag = null;
    const root = this.board.root;
    root.addEventListener("pointerdown", (e) => this.onPointerDown(e));
    window.addEventListener("pointermove", (e) => this.onPointerMove(e));
    window.addEventListener("pointerup", (e) => this.onPointerUp(e));
    window.addEventListener("pointercancel", (e) => this.onPointerCancel(e));
    window.addEventListener("keydown", (e) => this.onKey(e));
    // Enter plays the move chosen with ↑/↓ (or H) whatever has the focus: a pile focused by an
    // earlier click would otherwise take the key for itself (BoardAccess picks that pile up).
    // Caught on the way down, before any element sees it.
    window.addEventListener("keydown", (e) => this.onEnterCaptured(e), true);
    for (const button of document.querySelectorAll("#controls button[data-do]")) {
      button.addEventListener("click", () => this.onButton(button));
    }
    const $ = (id) => document.getElementById(id);
    $("btn-resign-game").addEventListener("click", () => {
      this.resignMenu(false);
      this.doAction("resign");
    });
    $("btn-abandon").addEventListener("click", () => {
      this.resignMenu(false);
      this.page.abandon();
    });
    $("btn-resign-cancel").addEventListener("click", () => this.resignMenu(false));
    $("show-playable").addEventListener("change", (e) => {
      const mode = this.page.view?.ruleset?.enforcement ?? "call";
      localStorage.setItem(PLAYABLE_KEY + mode, e.target.checked ? "1" : "0");
      this.redrawMarks();
    });
  }

  /** "Show playable cards": on by default where priorities are advice or enforced, off at `call`
   * tables (spotting the compulsory move is the skill there); the player's choice is kept. */
  showPlayable(view) {
    const mode = view?.ruleset?.enforcement ?? "call";
    const saved = localStorage.getItem(PLAYABLE_KEY + mode);
    return saved === null ? mode !== "call" : saved === "1";
  }

  resignMenu(open) {
    document.getElementById("resign-menu").hidden = !open;
    document.getElementById("btn-resign").hidden = open;
  }

  /** Marks that follow the newest view, drawn again after the board redraws. */
  redrawMarks() {
    const box = document.getElementById("show-playable");
    const on = this.seat !== null && box.checked;
    this.board.root.classList.toggle("show-playable", on);
    // The newest view's playable cards, marked once the board shows that view (while it
    // catches up, its piles are an older position's).
    this.board.mark("playable", this.page.idle ? this.sources : []);
  }

  get seat() {
    return this.page.seat;
  }

  onView(view) {
    this.legal = view?.legal ?? [];
    this.choices = keyboardChoices(this.legal, view);
    if (this.cursor >= 0) this.page.clearMessage("cursor"); // the list it pointed into is gone
    this.cursor = -1;
    this.markCursor(null);
    if (this.selected && !this.canPickUp(this.selected)) this.select(null);
    else this.select(this.selected);
    const has = (d) => this.legal.some((a) => a.do === d);
    const playing = this.seat !== null && view && !view.over;
    // A spectator has nothing to press: the buttons and the keys help go until he sits down.
    // Once the match is over nothing of a running game is left to press either.
    document.getElementById("controls").hidden = this.seat === null || Boolean(view?.match_over);
    document.getElementById("btn-turn").disabled = !has("turn");
    document.getElementById("btn-discard").disabled = !has("discard");
    document.getElementById("btn-pass").disabled = !has("pass");
    const call = document.getElementById("btn-call");
    // Enabled while a call can be made, and then it names the action it would call (issue 39);
    // no colour of its own: an open call is no sign of a fault.
    const canCall = playing && has("call");
    call.disabled = !canCall;
    call.dataset.can = canCall ? "1" : "0";
    // Only the `call` enforcement has Crapette! calls (docs/spec/rules.md §7).
    call.hidden = Boolean(view?.ruleset?.enforcement) && view.ruleset.enforcement !== "call";
    const callLabel = call.querySelector("span");
    callLabel.removeAttribute("data-i18n"); // its words follow the view from here on
    callLabel.textContent = canCall ? callWords(view, this.seat) : t("call.word");
    const draw = document.getElementById("btn-draw");
    const offered = playing && view.draw_offer === this.seat; // mine, not answered yet
    draw.disabled = !playing || offered;
    if (has("accept-draw")) draw.innerHTML = `${t("controls.accept_draw")} <kbd>O</kbd>`;
    else if (offered) draw.textContent = t("controls.draw_offered");
    else draw.innerHTML = `${t("controls.offer_draw")} <kbd>O</kbd>`;
    document.getElementById("btn-resign").disabled = !playing;
    document.getElementById("btn-hint").disabled = !this.choices.length;
    if (!playing) this.resignMenu(false);
    this.sources = new Set(this.legal.filter((a) => a.do === "move").map((a) => a.from));
    const mode = view?.ruleset?.enforcement ?? null;
    if (mode !== this.mode) {
      this.mode = mode; // a new table's rules: its default (or the player's saved choice)
      document.getElementById("show-playable").checked = this.showPlayable(view);
    }
    document.querySelector("label[for=show-playable]").hidden =
      this.seat === null || Boolean(view?.match_over);
    this.redrawMarks();
  }

  /** A pile whose top card this seat might move (the server has the last word): any house, and
   * the seat's own reserves (R, and Q of two reserves), turned card and waste. */
  canPickUp(pile) {
    if (this.seat === null || !this.page.view) return false;
    const cards = this.page.view.piles[pile];
    if (!cards || cards.length === 0 || cards[cards.length - 1] === null) return false;
    const me = String(this.seat);
    return pile[0] === "T" || ("RQXW".includes(pile[0]) && pile[1] === me);
  }

  /** A pile a card may be dragged from: a card to move, or one of the seat's own hands with a
   * legal turn (dragged onto the turned card, it turns: rules.md §10 names the hand). */
  canDrag(pile) {
    return this.canPickUp(pile) || (this.isMyHand(pile) && this.turnFrom(pile) !== undefined);
  }

  /** The action a drop of `src`'s top card on `dst` asks for (legal or not, the server judges):
   * a move; the turned card on the own waste is a discard; a hand on the turned card a turn. */
  dropAction(src, dst) {
    const mine = (kind) => `${kind}${this.seat}`;
    if (this.isMyHand(src)) return dst === mine("X") ? this.turnFrom(src) ?? this.turnOf(src) : null;
    if (src === mine("X") && dst === mine("W")) {
      return this.legal.find((a) => a.do === "discard") ?? { do: "discard" };
    }
    const legal = this.legal.find((a) => a.do === "move" && a.from === src && a.to === dst);
    return legal ?? { do: "move", from: src, to: dst };
  }

  /** The piles a drop of `src`'s top card would be accepted on now. */
  dropTargets(src) {
    if (this.isMyHand(src)) return this.turnFrom(src) ? [`X${this.seat}`] : [];
    const targets = this.targetsOf(src);
    if (src === `X${this.seat}` && this.legal.some((a) => a.do === "discard")) targets.push(`W${this.seat}`);
    return targets;
  }

  targetsOf(src) {
    return this.legal.filter((a) => a.do === "move" && a.from === src).map((a) => a.to);
  }

  select(pile) {
    this.selected = pile;
    this.board.mark("selected", pile ? [pile] : []);
    this.board.mark("target", pile ? this.dropTargets(pile) : []);
  }

  /** Try a move; the legal action object is sent when there is one (it names the card). The
   * turned card put on the own waste is a discard. */
  tryMove(src, dst) {
    this.select(null);
    return this.page.act(this.dropAction(src, dst));
  }

  /** The legal turn a click on this pile asks for: with three hands (rules.md §10) a click on
   * one of them turns from it; with one hand, a click on it turns. */
  turnFrom(pile) {
    const turns = this.legal.filter((a) => a.do === "turn");
    const named = turns.find((a) => a.hand === pile);
    if (named) return named;
    const oneHand = !turns.some((a) => a.hand);
    return oneHand && pile === `H${this.seat}` ? turns[0] : undefined;
  }

  /** One of this seat's own hands (H, or I and J of three hands). */
  isMyHand(pile) {
    return this.seat !== null && "HIJ".includes(pile[0]) && pile[1] === String(this.seat);
  }

  /** The turn a click on a hand asks for, legal or not: it names the hand when there are three. */
  turnOf(pile) {
    const three = `I${this.seat}` in (this.page.view?.piles ?? {});
    return three ? { do: "turn", hand: pile } : { do: "turn" };
  }

  onPileClick(pile) {
    const turn = this.selected === null ? this.turnFrom(pile) : undefined;
    if (turn) {
      this.select(null);
      this.page.act(turn);
      return;
    }
    if (this.selected === null) {
      if (this.canPickUp(pile)) this.select(pile);
      else if (this.isMyHand(pile)) this.page.act(this.turnOf(pile)); // the server says why not
      return;
    }
    if (pile === this.selected) {
      this.select(null);
      return;
    }
    const isTarget = this.dropTargets(this.selected).includes(pile);
    if (!isTarget && this.canPickUp(pile) && this.targetsOf(pile).length > 0) {
      this.select(pile); // another card with somewhere to go: pick that one up instead
      return;
    }
    this.tryMove(this.selected, pile);
  }

  onPointerDown(e) {
    if (e.button !== 0) return;
    this.endDrag(); // a drag left over (a lost pointerup) never blocks the next one
    const pileEl = e.target.closest("[data-pile]");
    if (!pileEl) return;
    const pile = pileEl.dataset.pile;
    const cardEl = e.target.closest(".card");
    const top = pileEl.querySelector(".card:last-of-type");
    this.drag = {
      pile,
      id: e.pointerId,
      x: e.clientX,
      y: e.clientY,
      // Only the top card of a pile can be dragged.
      card: this.canDrag(pile) && cardEl && cardEl === top ? top : null,
      ghost: null,
      onCard: Boolean(cardEl),
    };
    if (this.drag.card || cardEl) e.preventDefault();
  }

  onPointerMove(e) {
    const d = this.drag;
    if (!d || e.pointerId !== d.id) return;
    if (!d.card) {
      // A drag of a card that cannot move: say why, once per attempt.
      if (d.onCard && !d.told && Math.hypot(e.clientX - d.x, e.clientY - d.y) >= DRAG_START_PX) {
        d.told = true;
        const why = this.whyNot(d.pile);
        if (why) this.page.say(why, "why");
      }
      return;
    }
    if (!d.ghost) {
      if (Math.hypot(e.clientX - d.x, e.clientY - d.y) < DRAG_START_PX) return;
      const rect = d.card.getBoundingClientRect();
      d.dx = d.x - rect.left;
      d.dy = d.y - rect.top;
      if (!this.dropTargets(d.pile).length) {
        const why = this.whyNot(d.pile); // dragged anyway: the server will say which rule
        if (why) this.page.say(why, "why");
      }
      d.ghost = d.card.cloneNode(true);
      d.ghost.classList.add("dragging");
      d.ghost.style.width = `${rect.width}px`;
      d.ghost.style.height = `${rect.height}px`;
      d.ghost.style.fontSize = getComputedStyle(d.card).fontSize;
      d.ghost.style.right = "auto";
      this.board.root.append(d.ghost);
      d.card.style.visibility = "hidden";
      this.select(d.pile);
    }
    d.ghost.style.left = `${e.clientX - d.dx}px`;
    d.ghost.style.top = `${e.clientY - d.dy}px`;
  }

  /** Put a dragged card back and forget the drag (a drop, a cancelled pointer, a new press). */
  endDrag() {
    const d = this.drag;
    this.drag = null;
    if (d?.ghost) {
      d.ghost.remove();
      d.card.style.visibility = "";
    }
    return d;
  }

  onPointerCancel(e) {
    if (!this.drag || e.pointerId !== this.drag.id) return;
    const d = this.endDrag();
    if (d.ghost) {
      // The browser took the pointer over (a scroll, a system gesture): the card goes back.
      this.select(null);
      this.page.say(t("drop.cancelled", { card: this.cardWords(d.pile) }), "why");
    }
  }

  onPointerUp(e) {
    if (this.drag && e.pointerId !== this.drag.id) return;
    const ghost = this.drag?.ghost?.getBoundingClientRect(); // where the card was laid
    const d = this.endDrag();
    if (!d) return;
    // A touch pointer is captured by the element it pressed: the pile under the finger is
    // looked up by the point, never by the event's target.
    const under = this.board.pileAt(e.clientX, e.clientY);
    if (!d.card) {
      if (!d.told && under === d.pile) this.onPileClick(d.pile);
      return;
    }
    if (!d.ghost) {
      if (under === d.pile) this.onPileClick(d.pile);
      return;
    }
    const dst = this.dropPile(d.pile, ghost, under);
    if (dst) {
      this.select(null);
      const action = this.dropAction(d.pile, dst);
      if (action) {
        this.page.act(action);
        return;
      }
    }
    this.select(null);
    // Nothing sent: say so, so that a drop never fails in silence.
    const card = this.cardWords(d.pile);
    if (this.isMyHand(d.pile)) this.page.say(t("drop.hand", { pile: this.pileName(d.pile) }), "why");
    else if (under === d.pile) this.page.say(t("drop.back", { card }), "why");
    else this.page.say(t("drop.nowhere", { card }), "why");
  }

  /**
   * Where a dragged card was dropped: the pile under the pointer when the card may go there;
   * else the pile where it may go that the card's picture covers most (a card held by its
   * corner and laid on a house, the pointer just off it, or still over its own pile next door);
   * else the pile under the pointer, to be refused with the server's reason; else none.
   */
  dropPile(src, ghost, under) {
    const targets = this.dropTargets(src);
    if (under && under !== src && targets.includes(under)) return under;
    let best = null;
    let most = 0.2 * ghost.width * ghost.height; // at least a fifth of the card over it
    for (const pile of targets) {
      const el = this.board.pile(pile);
      if (!el) continue;
      const area = overlap(ghost, this.pileRect(el));
      if (area > most) {
        most = area;
        best = pile;
      }
    }
    if (best) return best;
    return under && under !== src ? under : null;
  }

  /** The part of a pile a card lands on: a house's cards (its fan), or its slot when empty. */
  pileRect(el) {
    const cards = [...el.querySelectorAll(":scope > .card")];
    const parts = cards.length ? cards : [el.querySelector(".slot") ?? el];
    const rects = parts.map((p) => p.getBoundingClientRect());
    return {
      left: Math.min(...rects.map((r) => r.left)),
      top: Math.min(...rects.map((r) => r.top)),
      right: Math.max(...rects.map((r) => r.right)),
      bottom: Math.max(...rects.map((r) => r.bottom)),
    };
  }

  pileName(pile) {
    const view = this.page.view;
    return pileWords(pile, { viewer: this.seat, players: view?.players ?? [], piles: view?.piles ?? {} });
  }

  /** The top card of a pile in words ("8♠"), or the pile's name for a face-down card. */
  cardWords(pile) {
    const cards = this.page.view?.piles?.[pile] ?? [];
    const top = cards.length ? cards[cards.length - 1] : null;
    return top ? cardText(top) : this.pileName(pile);
  }

  onButton(button) {
    const what = button.dataset.do;
    if (what === "resign") {
      // Two steps, so a stray tap does not end the game: this game, or the whole match.
      this.resignMenu(true);
      return;
    }
    this.doAction(what);
  }

  doAction(what) {
    if (what === "hint") return this.hint();
    let action = this.legal.find((a) => a.do === what);
    if (what === "offer-draw") action = this.legal.find((a) => a.do === "accept-draw") ?? action;
    this.select(null);
    return this.page.act(action ?? { do: what });
  }

  onKey(e) {
    if (e.target.closest?.("input, textarea, select")) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    if (KEY_ACTIONS[key]) {
      e.preventDefault();
      this.doAction(KEY_ACTIONS[key]);
    } else if (key === "Escape") {
      this.cursor = -1;
      this.select(null);
      this.markCursor(null);
      this.resignMenu(false);
      this.page.clearMessage("cursor", "hint");
    } else if (key === "ArrowDown" || key === "ArrowUp") {
      e.preventDefault();
      this.moveCursor(key === "ArrowDown" ? 1 : -1);
    }
  }

  /** Enter with a move chosen (↑/↓, H): play it, and let no focused pile or button have the key. */
  onEnterCaptured(e) {
    if (e.key !== "Enter" || this.cursor < 0) return;
    if (e.target.closest?.("input, textarea, select")) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    e.preventDefault();
    e.stopPropagation();
    const action = this.choices[this.cursor];
    this.cursor = -1;
    this.select(null);
    this.markCursor(null);
    this.page.clearMessage("cursor", "hint");
    this.page.act(action);
  }

  /** Step through the legal actions; the chosen move is shown as source and target. */
  moveCursor(step) {
    if (!this.choices.length) return;
    const n = this.choices.length;
    // From no choice yet, ↓ starts at the first action and ↑ at the last.
    const from = this.cursor < 0 ? (step > 0 ? -1 : n) : this.cursor;
    this.cursor = (((from + step) % n) + n) % n;
    const action = this.choices[this.cursor];
    this.page.say(t("controls.enter_plays", { action: describeChoice(action, this.page.view, this.seat) }), "cursor");
    this.select(null);
    this.markCursor(action);
  }

  /** The keyboard cursor's marks: dashed blue, unlike the last move's solid gold. */
  markCursor(action) {
    // A turn or a discard has no `from`: a turn comes from the hand (the named one of three
    // hands), a discard from the turned card.
    const from =
      action?.do === "turn" ? action.hand ?? `H${this.seat}` : action?.do === "discard" ? `X${this.seat}` : action?.from;
    this.board.mark("cursor-from", from ? [from] : []);
    this.board.mark("cursor-to", action?.to ? [action.to] : []);
  }

  /** H: show one legal action (a foundation move first), ready for Enter. */
  hint() {
    if (!this.choices.length) {
      this.page.say(this.seat === null ? t("controls.watching") : t("controls.nothing_to_do"), "hint");
      return;
    }
    const rank = (a) =>
      a.do === "move" && a.to.startsWith("F") ? 0 : a.do === "move" ? 1 : a.do === "call" ? 3 : 2;
    let best = 0;
    this.choices.forEach((a, i) => {
      if (rank(a) < rank(this.choices[best])) best = i;
    });
    this.cursor = best;
    const action = this.choices[best];
    this.select(null);
    this.markCursor(action);
    this.page.say(t("controls.hint", { action: describeChoice(action, this.page.view, this.seat) }), "cursor");
  }

  /** Why the top card of a pile cannot be moved now, in words (null: it can). */
  whyNot(pile) {
    const view = this.page.view;
    if (this.seat === null) return t("why.watching");
    if (!view || view.over) return t("why.game_over");
    const ctx = { viewer: this.seat, players: view.players, piles: view.piles };
    const cards = view.piles?.[pile] ?? [];
    const top = cards.length ? cards[cards.length - 1] : undefined;
    const name = pileWords(pile, ctx);
    const kind = pile[0];
    if (top === null) {
      return "HIJ".includes(kind) && pile[1] === String(this.seat)
        ? t("why.hand_face_down")
        : t("why.face_down", { pile: name });
    }
    if (kind === "F") return t("why.foundation");
    if (kind !== "T" && pile[1] !== String(this.seat)) return capitalWord(t("why.not_yours", { pile: name }));
    if (view.to_move !== this.seat) {
      return t("why.their_turn", { who: ctx.players?.[view.to_move] ?? t("why.your_opponent") });
    }
    if (kind === "W" && !this.targetsOf(pile).length) {
      return t("why.waste");
    }
    if (!this.targetsOf(pile).length) return t("why.nowhere", { card: cardText(top), pile: name });
    return null;
  }
}

/**
 * The legal actions the keyboard steps through: all of them, except that a card which fits
 * several empty foundations (an Ace: eight of them at the start) is offered once, to the first.
 */
export function keyboardChoices(legal, view) {
  const piles = view?.piles ?? {};
  const seen = new Set();
  return legal.filter((a) => {
    if (a.do !== "move" || !a.to?.startsWith("F") || (piles[a.to] ?? []).length > 0) return true;
    if (seen.has(a.from)) return false;
    seen.add(a.from);
    return true;
  });
}


/** What the call button would call, in the viewer's words: "Crapette! on 8♠ to house 3". The
 * call window names the opponent's last action ("R0-T2", "turn", "discard", "pass"); its card is
 * the top of the pile it went to. */
export function callWords(view, seat) {
  const call = t("call.word");
  const window = view?.call_window;
  const offender = window?.offender;
  const action = window?.action ?? "";
  if (!window?.open || offender === null || offender === undefined) return call;
  const piles = view.piles ?? {};
  const topOf = (pile) => {
    const cards = piles[pile] ?? [];
    const top = cards.length ? cards[cards.length - 1] : null;
    return top ? cardText(top) : null;
  };
  const ctx = { viewer: seat, players: view.players ?? [], piles };
  const move = /^([A-Z][0-7])-([A-Z][0-7])(?: (\S+))?$/.exec(action);
  if (move) {
    const code = move[3] ?? piles[move[2]]?.at(-1) ?? null;
    const card = code ? cardText(code) : null;
    const pile = pileWords(move[2], ctx, { card: code ?? undefined });
    return card ? t("call.on_move", { call, card, pile }) : call;
  }
  const kind = action.split(" ")[0];
  if (kind === "turn") {
    const card = topOf(`X${offender}`);
    return card ? t("call.on_turn", { call, card }) : call;
  }
  if (kind === "discard") {
    const card = topOf(`W${offender}`);
    return card ? t("call.on_discard", { call, card }) : call;
  }
  if (kind === "pass") return t("call.on_pass", { call });
  return call;
}

/** An action in a player's words: "7♥ from your reserve to house 2". */
export function describeChoice(action, view, seat) {
  if (action.do === "turn" && action.hand) {
    // A turn from one of three hands (rules.md §10): "turn a card of your second hand".
    const pile = pileWords(action.hand, { viewer: seat, players: view?.players ?? [], piles: view?.piles });
    return t("choice.turn_from", { pile });
  }
  if (action.do !== "move") return t(`choice.${action.do}`);
  const cards = view?.piles?.[action.from] ?? [];
  const top = cards.length ? cards[cards.length - 1] : null;
  const ctx = { viewer: seat, players: view?.players ?? [], piles: view?.piles ?? {} };
  const opts = { card: top ?? undefined };
  const from = pileWords(action.from, ctx, opts);
  const to = pileWords(action.to, ctx, opts);
  return top ? t("choice.move", { card: cardText(top), from, to }) : t("choice.move_hidden", { from, to });
}

/** The area two rectangles share (0 when apart). */
function overlap(a, b) {
  const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
  const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
  return w > 0 && h > 0 ? w * h : 0;
}

function capitalWord(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}
