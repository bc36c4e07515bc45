// How well a finished match was played (docs/protocol.md § analysis): asked of the server from
// the replay page, built in a worker process while a bar shows its progress, then drawn here: a
// win-chance graph under the board (click to jump), the judgement of each decision beside its
// action in the move list, the best move as an arrow over the board, and each player's accuracy
// and counts per game. Nothing of it exists for a match still in play: the server refuses it.
//
// A decision's `version` is the position the player decided at; the action's first event, and
// its row in the move list, is the frame after it.

import { Arrow, moveWords } from "./analysis.js";
import { formatNumber, t } from "./i18n.js";
import { RequestError, getJSON, postJSON } from "./net.js";
import { pileWords } from "./words.js";

const SVG = "http://www.w3.org/2000/svg";
const POLL_MS = 400;
export const JUDGEMENTS = ["best", "good", "inaccuracy", "mistake", "blunder"];
/** The judgements the mistake keys (M, Shift+M) and the learning mode stop at. */
export const MISTAKES = new Set(["mistake", "blunder"]);
const SIGNS = { inaccuracy: "?!", mistake: "?", blunder: "??", best: "★" };

function el(tag, attrs = {}, text = "") {
  const node = tag.startsWith("svg:")
    ? document.createElementNS(SVG, tag.slice(4))
    : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text) node.textContent = text;
  return node;
}

/** A decision's action (`played`, `best`: the JSON form of docs/spec/records.md §2) in words. */
export function actionWords(action, view, players) {
  if (!action) return "";
  if (action.do === "move") {
    const card = action.card ?? view?.piles?.[action.from]?.at(-1) ?? null;
    return moveWords({ from: action.from, to: action.to, card }, players);
  }
  if (action.do === "turn" && action.hand) {
    return t("analysis.turn_from", { pile: pileWords(action.hand, { viewer: null, players }) });
  }
  const key = { turn: "turn", discard: "discard", pass: "pass", call: "call" }[action.do];
  return key ? t(`analysis.${key}`, { call: t("call.word") }) : (action.text ?? action.do);
}

/** The same action, whatever extra keys (`text`, `card`) either side carries. */
export function sameAction(a, b) {
  if (!a || !b) return false;
  const keys = ["do", "seat", "from", "to", "hand"];
  return keys.every((k) => (a[k] ?? null) === (b[k] ?? null));
}

/** An action's notation as the options list has it (docs/spec/records.md §2: "R0-F2", "turn"). */
export function notationOf(action) {
  if (!action) return "";
  if (action.text) return action.text;
  if (action.do === "move") return `${action.from}-${action.to}`;
  if (action.do === "turn" && action.hand) return `turn ${action.hand}`;
  return action.do;
}

/** Seat 0's chance of winning at a decision (the evaluator gives the chance of the seat to move). */
function seat0Chance(d, which = "before") {
  const p = d.win_chance?.[which] ?? 0.5;
  return d.seat === 0 ? p : 1 - p;
}

/** An arrow for the best move of a decision: the fault arrow's layer, drawn in its own colour. */
class BestArrow extends Arrow {
  constructor(container, board) {
    super(container, board);
    // A layer of its own class: the fault arrow's `.arrow-layer` stays the only one.
    this.svg.setAttribute("class", "best-layer");
    this.line.setAttribute("class", "best");
  }

  showMove(move, title) {
    if (!move?.from || !move?.to) {
      this.svg.style.display = "none";
      this.shownMove = null;
      return;
    }
    const ends = this.ends(move.from, move.to); // its head short of the target, as the fault's
    if (!ends) return;
    const [a, b] = ends;
    for (const [name, value] of [["x1", a[0]], ["y1", a[1]], ["x2", b[0]], ["y2", b[1]]]) {
      this.line.setAttribute(name, value.toFixed(1));
    }
    this.line.firstChild.textContent = title;
    this.svg.dataset.move = `${move.from}-${move.to}`;
    this.svg.style.display = "";
    this.shownMove = move;
  }
}

/** The win-chance graph of one game: seat 0's chance at each decision, dots at the mistakes. */
class WinChart {
  constructor(game, players, jump) {
    this.w = 600;
    this.h = 80;
    const ds = game.decisions;
    this.from = ds[0]?.version ?? 0;
    this.to = Math.max(this.from + 1, ds.at(-1)?.version ?? 1);
    const title = t("judge.chart", { player: players[0] });
    this.svg = el("svg:svg", {
      viewBox: `0 0 ${this.w} ${this.h}`,
      preserveAspectRatio: "none",
      role: "img",
      "aria-label": title,
    });
    this.svg.append(el("svg:title", {}, t("analysis.chart_click", { title })));
    this.svg.append(el("svg:line", { x1: 0, x2: this.w, y1: this.h / 2, y2: this.h / 2, class: "even" }));
    const points = ds.map((d) => `${this.x(d.version).toFixed(1)},${this.y(seat0Chance(d)).toFixed(1)}`);
    if (ds.length) {
      const area = `0,${this.h} ${points.join(" ")} ${this.w},${this.h}`;
      this.svg.append(el("svg:polygon", { points: area, class: "area" }));
      this.svg.append(el("svg:polyline", { points: points.join(" "), class: "line" }));
    }
    for (const d of ds) {
      if (!MISTAKES.has(d.judgement) && d.judgement !== "inaccuracy") continue;
      // A round cap on a path of no length, its stroke unscaled: a round dot however the
      // graph is stretched (a circle would be squashed into an ellipse).
      const x = this.x(d.version).toFixed(1);
      const y = this.y(seat0Chance(d, "after")).toFixed(1);
      const dot = el("svg:path", { d: `M${x} ${y}h0.01`, class: `dot ${d.judgement} seat${d.seat}` });
      dot.append(el("svg:title", {}, `${players[d.seat]}${t("punct.colon")}${t(`judge.${d.judgement}`)}`));
      this.svg.append(dot);
    }
    this.box = el("div", { class: "win-chart", "data-testid": "win-chart" });
    this.label = el("span", { class: "win-label" }, title);
    this.cursor = el("div", { class: "cursor" });
    this.box.append(this.svg, this.cursor, this.label);
    this.box.addEventListener("click", (e) => {
      const r = this.box.getBoundingClientRect();
      const version = this.from + ((e.clientX - r.left) / r.width) * (this.to - this.from);
      // The nearest decision's position: a click lands on a position someone decided at.
      const near = ds.reduce((a, b) => (Math.abs(b.version - version) < Math.abs(a.version - version) ? b : a), ds[0]);
      if (near) jump(near.version);
    });
  }

  x(version) {
    return ((version - this.from) / (this.to - this.from)) * this.w;
  }

  y(p) {
    return this.h - p * this.h;
  }

  show(version) {
    const inside = version >= this.from && version <= this.to + 1;
    this.cursor.style.display = inside ? "" : "none";
    if (inside) {
      const x = Math.min(this.w, this.x(version));
      this.cursor.style.transform = `translateX(${((100 * x) / this.w).toFixed(2)}%)`;
    }
  }
}

export class Judgements {
  /** `page`: the replay (its frames, players, board, `go`, `indexOfVersion`, `rows`). */
  constructor(page) {
    this.page = page;
    this.box = document.getElementById("judge");
    this.side = document.getElementById("judge-side");
    this.data = null;
    this.byPosition = new Map(); // version of the position decided at → decision
    this.byAction = new Map(); // version of the action's first event → decision
    this.byFault = new Map(); // version of an uncalled fault's first event → its missed call
    this.byWrongCall = new Map(); // version of a wrong call's frame → its judgement (issue 37)
    this.depth = new URLSearchParams(location.search).get("depth"); // null: the server's default
    this.mistakes = []; // decisions judged a mistake or a blunder, in order
    this.charts = new Map(); // game index → WinChart
    this.arrow = new BestArrow(document.getElementById("board-wrap"), page.board);
    this.listeners = [];
  }

  /** The analysis's address (`/status` after it for its status), at the depth the replay's
   *  address named when the page opened (`?depth=quick`: docs/protocol.md § analysis), else
   *  the server's default. */
  url(path = "") {
    const query = this.depth ? `?depth=${encodeURIComponent(this.depth)}` : "";
    return `/api/matches/${encodeURIComponent(this.page.matchId)}/analysis${path}${query}`;
  }

  /** Called once the replay is loaded: a finished match shows its analysis, or the button
   *  that asks for it; a live one nothing at all (the server would refuse it). The status
   *  endpoint answers every state with 200 (docs/protocol.md § analysis): a match nobody has
   *  analysed yet is a state, not an error in the console. */
  async start() {
    if (this.page.data.live) return;
    this.box.hidden = false;
    try {
      const status = await getJSON(this.url("/status"));
      if (status.status === "none") this.offer();
      else if (status.status === "unavailable") this.box.hidden = true;
      else this.follow(status);
    } catch (err) {
      this.failed(err);
    }
  }

  offer() {
    const button = el("button", { type: "button", "data-testid": "analyse" }, t("judge.ask"));
    button.addEventListener("click", () => this.ask());
    this.box.replaceChildren(button, el("span", { class: "hint" }, t("judge.ask_hint")));
  }

  async ask() {
    this.progress(0, 0);
    try {
      this.follow(await postJSON(this.url(), {}));
    } catch (err) {
      this.failed(err);
    }
  }

  /** A status (docs/protocol.md § analysis): the analysis, or its progress and a poll later. */
  follow(status) {
    if (status.status === "done") {
      this.apply(status.analysis);
      return;
    }
    if (status.status === "failed") {
      this.failed(new RequestError(500, status.error));
      return;
    }
    this.progress(status.progress.done, status.progress.total);
    setTimeout(async () => {
      try {
        this.follow(await getJSON(this.url("/status")));
      } catch (err) {
        this.failed(err);
      }
    }, POLL_MS);
  }

  progress(done, total) {
    let bar = this.box.querySelector("progress");
    if (!bar) {
      bar = el("progress", { "data-testid": "analysis-progress", max: 1, value: 0 });
      this.box.replaceChildren(el("span", {}, t("judge.running")), " ", bar, el("span", { class: "count" }));
    }
    bar.max = Math.max(1, total);
    bar.value = done;
    this.box.querySelector(".count").textContent = total ? ` ${done} / ${total}` : "";
  }

  failed(err) {
    const button = el("button", { type: "button" }, t("judge.retry"));
    button.addEventListener("click", () => this.ask());
    this.box.replaceChildren(el("span", { class: "error" }, t("judge.failed", { reason: err.message })), " ", button);
  }

  /** The built analysis: index it, mark the move list, draw the charts and the accuracies. */
  apply(analysis) {
    this.data = analysis;
    this.games = new Map();
    analysis.games.forEach((game, i) => this.games.set(game.game_index ?? i, game));
    for (const game of this.games.values()) {
      for (const d of game.decisions) {
        this.byPosition.set(d.version, d);
        this.byAction.set(d.version + 1, d);
        if (MISTAKES.has(d.judgement)) this.mistakes.push(d);
      }
      for (const m of game.missed_calls ?? []) if (m.fault) this.byFault.set(m.fault.version, m);
      for (const w of game.wrong_calls ?? []) this.byWrongCall.set(w.version + 1, w);
    }
    this.mistakes.sort((a, b) => a.version - b.version);
    this.markRows();
    this.box.replaceChildren();
    this.side.replaceChildren(this.accuracy());
    this.side.hidden = false;
    document.body.classList.add("has-judgements");
    this.shownGame = undefined;
    this.page.redraw();
    for (const listener of this.listeners) listener(this);
  }

  /** Call `fn(this)` once the analysis is there (at once if it is). */
  whenReady(fn) {
    if (this.data) fn(this);
    else this.listeners.push(fn);
  }

  markRows() {
    this.page.frames.forEach((f, k) => {
      const d = this.byAction.get(f.version);
      const row = this.page.rows[k];
      if (!d || !row || row.querySelector(".judgement")) return;
      const sign = SIGNS[d.judgement] ?? "";
      const badge = el("span", { class: `judgement ${d.judgement}`, "data-judgement": d.judgement }, sign);
      badge.title = this.decisionWords(d);
      row.classList.add(`judged-${d.judgement}`);
      // After the number, before the words: a long row is cut at its end, never its mark.
      row.querySelector(".n")?.after(badge, " ");
    });
  }

  /** "a mistake (win chance 62% → 48%); best: 7♥ from Ann's reserve to house 2 (63%)" */
  decisionWords(d, view = null) {
    const pct = (p) => `${Math.round(100 * p)}%`;
    const chance = d.win_chance ?? {};
    const said = t("judge.said", {
      judgement: t(`judge.${d.judgement}`),
      before: pct(chance.before ?? 0),
      after: pct(chance.after ?? 0),
    });
    if (d.judgement === "best" || sameAction(d.best, d.played)) return said;
    const best = t("judge.best_was", { move: actionWords(d.best, view, this.page.players), chance: pct(chance.best ?? 0) });
    return `${said}; ${best}${this.checkWords(d)}`;
  }

  /** "; checked on 32 deals: best wins 61%, played 44%": how the playouts checked a label
   *  (docs/evaluator.md § The judge), or "" for a decision no playout checked. */
  checkWords(d) {
    const check = d.check;
    if (!check || !check.deals) return "";
    const pct = (p) => `${Math.round(100 * p)}%`;
    return `; ${t("judge.checked", { deals: check.deals, best: pct(check.best), played: pct(check.played) })}`;
  }

  /** Each player's accuracy and counts in each game, and over the match. */
  accuracy() {
    const players = this.page.players;
    const table = el("table", { class: "summary accuracy", "data-testid": "accuracy" });
    const head = table.createTHead().insertRow();
    head.append(el("th", {}, t("judge.accuracy")));
    for (const name of players) head.append(el("th", {}, name));
    const body = table.createTBody();
    const overall = [0, 1].map((seat) => this.matchAccuracy(seat));
    const row = body.insertRow();
    row.append(el("th", {}, t("judge.match")));
    for (const seat of [0, 1]) row.append(el("td", { "data-testid": `accuracy-${seat}` }, overall[seat] === null ? "–" : formatNumber(overall[seat], 1)));
    for (const [g, game] of this.games) {
      const r = body.insertRow();
      r.append(el("th", {}, t("analysis.summary_game", { n: g + 1 })));
      for (const seat of [0, 1]) r.append(el("td", {}, typeof game.seats?.[seat]?.accuracy === "number" ? formatNumber(game.seats[seat].accuracy, 1) : "–"));
    }
    for (const j of JUDGEMENTS.slice(2)) {
      const r = body.insertRow();
      r.append(el("th", { class: `judgement-name ${j}` }, `${SIGNS[j]} ${t(`judge.${j}_plural`)}`));
      for (const seat of [0, 1]) {
        let n = 0;
        for (const game of this.games.values()) n += game.seats?.[seat]?.counts?.[j] ?? 0;
        r.append(el("td", { "data-testid": `count-${j}-${seat}` }, String(n)));
      }
    }
    return table;
  }

  /** The match's accuracy of a seat: the server's if it gives one (`match.seats`), else the
   *  games' weighted by their decisions. */
  matchAccuracy(seat) {
    const given = this.data?.match?.seats?.[seat]?.accuracy;
    if (typeof given === "number") return given;
    let sum = 0;
    let weight = 0;
    for (const game of this.games.values()) {
      const acc = game.seats?.[seat]?.accuracy;
      const n = game.decisions.filter((d) => d.seat === seat).length;
      if (typeof acc === "number" && n) {
        sum += acc * n;
        weight += n;
      }
    }
    return weight ? sum / weight : null;
  }

  /** Show what the analysis says of frame `frame` of game `g` (called on every step). */
  show(g, frame, view) {
    if (!this.data) return;
    if (g !== this.shownGame) {
      this.shownGame = g;
      const game = this.games.get(g);
      let chart = this.charts.get(g);
      if (game && !chart && game.decisions.length) {
        chart = new WinChart(game, this.page.players, (v) => this.page.go(this.page.indexOfVersion(v)));
        this.charts.set(g, chart);
      }
      this.box.replaceChildren(...(chart ? [chart.box] : []));
      this.chart = chart ?? null;
    }
    this.chart?.show(frame.version);
    // Learning (learn.js): the decision being tried, its best move only once revealed.
    const learning = this.learning;
    const d = learning ? (learning.reveal ? learning.decision : null) : this.byAction.get(frame.version);
    const best = d && (learning || !sameAction(d.best, d.played)) ? d.best : null;
    this.arrow.showMove(best, best ? t("judge.best_arrow", { move: actionWords(best, view, this.page.players) }) : "");
    this.current = d ?? null;
  }

  /** "Bob did not call Crapette! — a mistake (win chance 35%; 61% with the call)": a missed
   *  call's judgement (docs/records.md), beside the fault's own mark. */
  missedWords(m) {
    const pct = (p) => `${Math.round(100 * p)}%`;
    return t("judge.missed_call", {
      player: this.page.players[m.seat],
      call: t("call.word"),
      judgement: t(`judge.${m.judgement}`),
      after: pct(m.win_chance?.after ?? 0),
      best: pct(m.win_chance?.best ?? 0),
    });
  }

  /** Words for the caption of the frame shown (or ""): its decision's judgement, and that of
   *  the call its fault left unmade. */
  caption(frame) {
    if (this.learning) return "";
    const d = this.byAction.get(frame.version);
    const m = this.byFault.get(frame.version);
    const parts = d ? [`${this.page.players[d.seat]}${t("punct.colon")}${this.decisionWords(d)}`] : [];
    if (m) parts.push(this.missedWords(m));
    const w = this.byWrongCall.get(frame.version);
    if (w) {
      const judged = t(`judge.${w.judgement}`);
      parts.push(t("judge.wrong_call", { player: this.page.players[w.seat], call: t("call.word"), judgement: judged }));
    }
    return parts.join(" · ");
  }

  /** Go to the next (d > 0) or previous mistake or blunder: its action's frame. */
  jumpMistake(d) {
    const here = this.page.frames[this.page.pos]?.version ?? 0;
    const list = d > 0 ? this.mistakes : [...this.mistakes].reverse();
    const next = list.find((m) => (d > 0 ? m.version + 1 > here : m.version + 1 < here));
    if (next) this.page.go(this.page.indexOfVersion(next.version + 1));
  }
}
