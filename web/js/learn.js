// Learn from your mistakes (docs/web.md § learn from a replay): once a finished match is analysed,
// walk one player's mistakes and blunders one by one. Each shows the position as that player saw
// it (the seat's knowledge view), says what was played, and asks for a better move among the
// actions the rules allowed there; the server says whether the try keeps the win chance of the
// best move found (docs/protocol.md § analysis, `…/analysis/try`), and then the best move is shown
// as an arrow. The viewer's own seat (a seat token kept by this browser) comes first.

import { optionWords } from "./analysis.js";
import { t } from "./i18n.js";
import { getJSON, loadSeat, postJSON } from "./net.js";
import { MISTAKES, actionWords, notationOf, sameAction } from "./judgements.js";

function el(tag, attrs = {}, text = "") {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text) node.textContent = text;
  return node;
}

const pct = (p) => `${Math.round(100 * p)}%`;

export class Learn {
  constructor(page, judgements) {
    this.page = page;
    this.judgements = judgements;
    this.box = el("div", { class: "learn", "data-testid": "learn", "aria-live": "polite" });
    this.box.hidden = true;
    this.options = new Map(); // seat → version → [[notation, rule], …]
    this.active = false;
  }

  /** Put the mode's buttons and panel in `box` (the judgements' side panel). */
  mount(box) {
    const actions = el("div", { class: "actions" });
    actions.append(...this.buttons());
    box.append(actions, this.box);
  }

  /** The buttons that start the mode: the viewer's own mistakes if this browser sat at the
   *  table, else one per player. */
  buttons() {
    const own = loadSeat(this.page.matchId)?.seat;
    const seats = own === 0 || own === 1 ? [own] : [0, 1];
    return seats.map((seat) => {
      const count = this.mistakesOf(seat).length;
      const label = own === seat
        ? t("learn.start_own", { count })
        : t("learn.start", { player: this.page.players[seat], count });
      const button = el("button", { type: "button", "data-testid": `learn-${seat}` }, label);
      button.disabled = count === 0;
      button.addEventListener("click", () => this.start(seat));
      return button;
    });
  }

  mistakesOf(seat) {
    return this.judgements.mistakes.filter((d) => d.seat === seat && MISTAKES.has(d.judgement));
  }

  async start(seat) {
    this.seat = seat;
    this.list = this.mistakesOf(seat);
    this.active = true;
    this.box.hidden = false;
    this.page.setView(`seat${seat}`);
    await this.step(0);
  }

  stop() {
    this.active = false;
    this.box.hidden = true;
    this.judgements.learning = null;
    this.page.setView("all");
  }

  async loadOptions(seat) {
    if (!this.options.has(seat)) {
      const id = encodeURIComponent(this.page.matchId);
      const data = await getJSON(`/api/matches/${id}/options?seat=${seat}`);
      this.options.set(seat, new Map(data.options));
    }
    return this.options.get(seat);
  }

  /** Mistake `i` of the list: its position, what was played, and the moves to try. */
  async step(i) {
    this.index = i;
    const d = this.list[i];
    if (!d) {
      this.done();
      return;
    }
    this.judgements.learning = { decision: d, reveal: false };
    this.page.go(this.page.indexOfVersion(d.version));
    const view = this.page.frames[this.page.pos]?.view;
    const players = this.page.players;
    const head = el("p", { class: "learn-head" }, t("learn.head", {
      n: i + 1,
      count: this.list.length,
      player: players[this.seat],
      played: actionWords(d.played, view, players),
      judgement: t(`judge.${d.judgement}`),
    }));
    const ask = el("p", { class: "learn-ask" }, t("learn.find"));
    const tries = el("div", { class: "actions tries", "data-testid": "learn-tries" });
    const verdict = el("p", { class: "learn-verdict", "data-testid": "learn-verdict" });
    const controls = el("div", { class: "actions" });
    const reveal = el("button", { type: "button", "data-testid": "learn-reveal" }, t("learn.show"));
    reveal.addEventListener("click", () => this.reveal());
    const next = el("button", { type: "button", "data-testid": "learn-next" }, t("learn.next"));
    next.addEventListener("click", () => this.step(this.index + 1));
    const stop = el("button", { type: "button", "data-testid": "learn-stop" }, t("learn.stop"));
    stop.addEventListener("click", () => this.stop());
    controls.append(reveal, next, stop);
    this.box.replaceChildren(head, ask, tries, verdict, controls);
    this.verdict = verdict;
    const options = (await this.loadOptions(this.seat)).get(d.version) ?? [];
    const seen = new Set();
    for (const option of options) {
      const said = optionWords(option, view, players);
      if (seen.has(said.words)) continue;
      seen.add(said.words);
      const button = el("button", { type: "button", class: "try" }, said.words);
      button.dataset.action = option[0];
      if (option[0] === notationOf(d.played)) {
        button.classList.add("played");
        button.title = t("learn.was_played");
      }
      button.addEventListener("click", () => this.tryMove(option[0], button));
      tries.append(button);
    }
  }

  async tryMove(text, button) {
    const d = this.list[this.index];
    const id = encodeURIComponent(this.page.matchId);
    this.verdict.textContent = t("learn.asking");
    try {
      const answer = await postJSON(`/api/matches/${id}/analysis/try`, {
        version: d.version,
        action: { text },
      });
      const chance = answer.win_chance;
      const good = answer.verdict !== "worse";
      this.verdict.textContent = good
        ? t(answer.verdict === "best" ? "learn.best" : "learn.as_good", { chance: pct(chance.tried) })
        : t("learn.worse", { chance: pct(chance.tried), best: pct(chance.best) });
      this.verdict.dataset.verdict = answer.verdict;
      button.classList.add(good ? "right" : "wrong");
      if (good) this.reveal();
    } catch (err) {
      this.verdict.textContent = t("judge.failed", { reason: err.message });
    }
  }

  /** Show the best move found: its arrow on the board and in words. */
  reveal() {
    const d = this.list[this.index];
    if (!d) return;
    this.judgements.learning = { decision: d, reveal: true };
    this.page.redraw();
    const view = this.page.frames[this.page.pos]?.view;
    const best = actionWords(d.best, view, this.page.players);
    const line = this.box.querySelector(".learn-best") ?? el("p", { class: "learn-best", "data-testid": "learn-best" });
    line.textContent = sameAction(d.best, d.played)
      ? t("learn.best_same", { move: best })
      : t("learn.best_is", { move: best, chance: pct(d.win_chance?.best ?? 0) });
    this.verdict.after(line);
  }

  done() {
    const again = el("button", { type: "button" }, t("learn.again"));
    again.addEventListener("click", () => this.step(0));
    const stop = el("button", { type: "button", "data-testid": "learn-stop" }, t("learn.stop"));
    stop.addEventListener("click", () => this.stop());
    const controls = el("div", { class: "actions" });
    controls.append(again, stop);
    this.box.replaceChildren(el("p", { "data-testid": "learn-done" }, t("learn.done", { count: this.list.length })), controls);
    this.judgements.learning = null;
    this.page.redraw();
  }
}
