// The replay's analysis of finished games (the server's `analysis`, docs/protocol.md): missed
// calls in words, an arrow for each fault's skipped compulsory move, the knowledge views, SVG
// charts that jump when clicked, and a summary panel per game. Nothing here is known while a
// game runs: the server sends the analysis of finished games only.
//
// Piles are named in words ("Ann's reserve", "house 3", "the ♠ foundation"), never by code, in
// the page's language (words.js, i18n.js).

import { formatNumber, t } from "./i18n.js";
import { cardText, pileWords } from "./words.js";

const SVG = "http://www.w3.org/2000/svg";
const SEAT_COLOURS = ["var(--pack0)", "var(--pack1)"];
const ARROW_GAP_PX = 7; // from the line end to the pile edge: the head (5 px past the end) stops 2 px short

/** The knowledge views, in the order the `v` key walks through them. */
export const VIEWS = ["all", "seat0", "seat1", "spectator"];

function el(tag, attrs = {}, text = "") {
  const node = tag.startsWith("svg:")
    ? document.createElementNS(SVG, tag.slice(4))
    : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text) node.textContent = text;
  return node;
}

/** "A♠ from Ann's reserve to the ♠ foundation", as a spectator says it. */
export function moveWords(move, players) {
  const ctx = { viewer: null, players };
  const opts = { card: move.card };
  return t("analysis.move", {
    card: move.card ? cardText(move.card) : t("card.hidden"),
    src: pileWords(move.from, ctx, opts),
    dst: pileWords(move.to, ctx, opts),
  });
}

/** "missed: Bob could have called Crapette!" */
export function missedWords(fault, players) {
  const caller = players[1 - fault.seat] ?? t("player.n", { n: 2 - fault.seat });
  return t("analysis.missed", { caller, call: t("call.word") });
}

/** One line about a fault: who missed it (or called it) and the move that had to come first. */
export function faultWords(fault, players) {
  const judged = fault.missed
    ? missedWords(fault, players)
    : t("analysis.called", { caller: players[fault.called_by] ?? "?" });
  if (!fault.skipped) return judged;
  return `${judged}${t("punct.colon")}${t("analysis.came_first", { move: moveWords(fault.skipped, players) })}`;
}

/** A view as the chosen knowledge view shows it: `spectator` and the seats hide the cards that
 * were face down (the view of a finished match reveals them with `face_down` counts). */
export function knowledgeView(view, mode) {
  if (mode === "all" || !view?.face_down) return view;
  const piles = {};
  for (const [name, cards] of Object.entries(view.piles ?? {})) {
    const down = view.face_down[name] ?? 0;
    piles[name] = down ? cards.map((c, i) => (i < down ? null : c)) : cards;
  }
  const { face_down: _hidden, ...rest } = view;
  return { ...rest, piles };
}

/** Round numbers for an axis from 0 to about `max`, three of them (four where the third falls
 * short): [0, step, 2·step, …] up to the first ≥ max. */
export function axisTicks(max) {
  if (!(max > 0)) return [0, 1];
  const rough = max / 2;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].map((m) => m * power).find((s) => s >= rough) ?? 10 * power;
  const ticks = [];
  for (let v = 0; v < max + step * 1e-9; v += step) ticks.push(Number(v.toPrecision(12)));
  if (ticks.at(-1) < max) ticks.push(Number((ticks.at(-1) + step).toPrecision(12)));
  return ticks;
}

/**
 * A small chart over a range of versions; clicking it calls `jump(version)`. Above the plot its
 * title and a key naming each player in his colour; on the plot's left edge the scale (round
 * values, gridlines), under it the event numbers of the move list. The plot spans the chart's
 * whole width, so a click's x is a version. Its cursor is an HTML line laid over the SVG: moving
 * it never makes the browser lay the SVG out again.
 */
class Chart {
  constructor(title, from, to, jump, testid, players = []) {
    this.from = from;
    this.to = Math.max(to, from + 1);
    this.w = 300;
    this.h = 70;
    this.svg = el("svg:svg", {
      viewBox: `0 0 ${this.w} ${this.h}`,
      preserveAspectRatio: "none",
      role: "img",
      "aria-label": title,
    });
    this.svg.append(el("svg:title", {}, t("analysis.chart_click", { title })));
    this.box = el("div", { class: "chart", "data-testid": testid });
    const head = el("div", { class: "chart-head" });
    this.title = el("span", { class: "chart-title" }, title);
    const key = el("span", { class: "chart-key", "data-testid": "chart-key" });
    players.forEach((name, seat) => {
      const item = el("span", { class: `key seat${seat}` });
      const swatch = el("span", { class: "swatch", "aria-hidden": "true" });
      // Through the CSSOM: the page's policy refuses style attributes (server/entrypoints/security.py).
      swatch.style.background = SEAT_COLOURS[seat];
      item.append(swatch, name);
      key.append(item);
    });
    head.append(this.title, key);
    this.plot = el("div", { class: "plot" });
    this.yAxis = el("div", { class: "y-axis", "data-testid": "y-axis" });
    this.cursor = el("div", { class: "cursor" });
    this.plot.append(this.svg, this.yAxis, this.cursor);
    this.xAxis = el("div", { class: "x-axis", "data-testid": "x-axis" });
    this.box.append(head, this.plot, this.xAxis);
    this.drawX();
    this.box.addEventListener("click", (e) => {
      const box = this.box.getBoundingClientRect();
      const x = ((e.clientX - box.left) / box.width) * this.w;
      jump(Math.round(this.version(x)));
    });
  }

  x(version) {
    return ((version - this.from) / (this.to - this.from)) * this.w;
  }

  version(x) {
    return this.from + (x / this.w) * (this.to - this.from);
  }

  y(value, max) {
    return this.h - (max ? (value / max) * (this.h - 4) : 0);
  }

  /** The vertical scale: round values from 0 up to at least `max` (returned: the new top, to
   * draw the series against), each a gridline and a label said by `say`. */
  scale(max, say) {
    const ticks = axisTicks(max);
    const top = ticks.at(-1);
    for (const value of ticks) {
      const y = this.y(value, top);
      this.svg.prepend(el("svg:line", { x1: 0, x2: this.w, y1: y, y2: y, class: value ? "grid" : "grid base" }));
      const label = el("span", { class: "tick-label" }, say(value));
      label.style.top = `${((100 * y) / this.h).toFixed(1)}%`;
      this.yAxis.append(label);
    }
    return top;
  }

  /** The horizontal scale: the event numbers (as the move list shows them) at round places. */
  drawX() {
    const span = this.to - this.from;
    const step = Math.max(1, Math.ceil(axisTicks(span / 2)[1] || 1)); // whole event numbers
    const first = Math.ceil(this.from / step) * step;
    const values = [this.from];
    for (let v = first; v < this.to; v += step) if (v - this.from > span * 0.08 && this.to - v > span * 0.08) values.push(v);
    values.push(this.to);
    for (const v of values) {
      const label = el("span", { class: "tick-label" }, String(v));
      label.style.left = `${((100 * this.x(v)) / this.w).toFixed(1)}%`;
      this.xAxis.append(label);
    }
    this.xAxis.title = t("analysis.axis_events");
  }

  line(points, max, seat) {
    const d = points.map(([v, value]) => `${this.x(v).toFixed(1)},${this.y(value, max).toFixed(1)}`);
    this.svg.append(
      el("svg:polyline", { points: d.join(" "), class: `series seat${seat}`, stroke: SEAT_COLOURS[seat] }),
    );
  }

  /** Bars as one path per seat (a few elements, however many actions a game has). */
  bars(items, max, width) {
    const d = [[], []];
    for (const [version, seat, value] of items) {
      const x = this.x(version);
      d[seat].push(`M${x.toFixed(1)} ${this.h}V${this.y(value, max).toFixed(1)}`);
    }
    for (const seat of [0, 1]) {
      if (!d[seat].length) continue;
      this.svg.append(
        el("svg:path", {
          d: d[seat].join(""),
          class: `bars seat${seat}`,
          stroke: SEAT_COLOURS[seat],
          "stroke-width": Math.max(1, width).toFixed(1),
        }),
      );
    }
  }

  show(version) {
    const inside = version >= this.from && version <= this.to;
    if (inside !== this.inside) {
      this.inside = inside;
      this.cursor.style.display = inside ? "" : "none";
    }
    // A full-width element whose left edge is the line: a translation in % of its own width
    // is a move in % of the chart, and a transform needs no layout at all.
    if (inside) this.cursor.style.transform = `translateX(${((100 * this.x(version)) / this.w).toFixed(2)}%)`;
  }
}

export class ReplayAnalysis {
  /**
   * @param {object|null} data the replay's `analysis`
   * @param {string[]} players
   * @param {(version: number) => void} jump go to the frame of that version
   */
  constructor(data, players, jump) {
    this.players = players;
    this.jump = jump;
    this.games = new Map((data?.games ?? []).map((g) => [g.game_index, g]));
    this.scores = data?.scores ?? [];
    this.missedAt = new Map(); // fault_version → missed fault
    this.faultAt = new Map(); // fault_version → fault (called or missed)
    for (const g of this.games.values()) {
      for (const f of g.faults) {
        this.faultAt.set(f.fault_version, f);
        if (f.missed) this.missedAt.set(f.fault_version, f);
      }
    }
    this.built = new Map(); // game index → {charts, summary}
    this.shownGame = undefined;
    this.perTurn = false;
  }

  get any() {
    return this.games.size > 0;
  }

  /** Is game `g` over (so its analysis and every knowledge view may be shown)? */
  over(g) {
    return this.games.has(g);
  }

  /** The charts and summary of game `g` (built once), or null. */
  parts(g) {
    const game = this.games.get(g);
    if (!game) return null;
    let parts = this.built.get(g);
    if (!parts) {
      parts = {
        left: this.cardsLeftChart(game),
        thinking: this.thinkingChart(game, false),
        turns: this.thinkingChart(game, true),
        summary: this.summary(game),
      };
      this.built.set(g, parts);
    }
    return parts;
  }

  cardsLeftChart(game) {
    const chart = new Chart(t("analysis.chart_left"), game.start_version, game.end_version, this.jump, "chart-left", this.players);
    const most = Math.max(1, ...game.cards_left.map(([, a, b]) => Math.max(a, b)));
    const max = chart.scale(most, (n) => formatNumber(n));
    for (const seat of [0, 1]) chart.line(game.cards_left.map((p) => [p[0], p[1 + seat]]), max, seat);
    return chart;
  }

  thinkingChart(game, perTurn) {
    const title = t(perTurn ? "analysis.chart_turn" : "analysis.chart_action");
    const chart = new Chart(title, game.start_version, game.end_version, this.jump, "chart-thinking", this.players);
    const items = perTurn ? game.turns : game.thinking; // [version, seat, ms, …]
    const longestMs = Math.max(1, ...items.map((i) => i[2]));
    // The scale in whole seconds where they are many, in tenths where a game was quick.
    // (a second at least: a game of quick moves is not drawn on a scale of milliseconds).
    const max = 1000 * chart.scale(Math.max(1, longestMs / 1000), (s) => t("analysis.seconds", { s: formatNumber(s, Number.isInteger(s) ? 0 : 1) }));
    const longest = items.reduce((a, b) => (b[2] > a[2] ? b : a), items[0] ?? [0, 0, 0]);
    chart.svg.firstChild.textContent = t("analysis.longest", {
      title,
      s: formatNumber(longest[2] / 1000, 1),
      player: this.players[longest[1]] ?? "?",
    });
    chart.bars(items, max, chart.w / Math.max(1, game.end_version - game.start_version));
    return chart;
  }

  scoreChart(lastVersion) {
    if (this.matchChart) return this.matchChart;
    const chart = new Chart(t("analysis.chart_score"), 1, lastVersion, this.jump, "chart-score", this.players);
    const most = Math.max(1, ...this.scores.map(([, a, b]) => Math.max(a, b)));
    const max = chart.scale(most, (n) => formatNumber(n));
    for (const seat of [0, 1]) {
      const points = [[1, 0]];
      let total = 0;
      for (const s of this.scores) {
        points.push([s[0], total]);
        total = s[1 + seat];
        points.push([s[0], total]);
      }
      points.push([lastVersion, total]);
      chart.line(points, max, seat);
    }
    this.matchChart = chart;
    return this.matchChart;
  }

  summary(game) {
    const table = el("table", { class: "summary", "data-testid": "summary" });
    const head = table.createTHead().insertRow();
    head.append(el("th", {}, t("analysis.summary_game", { n: game.game_index + 1 })));
    for (const name of this.players) head.append(el("th", {}, name));
    const seconds = (ms) => t("analysis.seconds", { s: formatNumber(ms / 1000, 1) });
    const rows = [
      [t("analysis.faults"), (s) => s.faults],
      [t("analysis.right_calls"), (s) => s.right_calls],
      [t("analysis.wrong_calls"), (s) => s.wrong_calls],
      [t("analysis.missed_calls"), (s) => s.missed_calls],
      [t("analysis.longest_turn"), (s) => seconds(s.longest_turn_ms)],
      [t("analysis.to_foundations"), (s) => s.to_foundations],
    ];
    const body = table.createTBody();
    for (const [label, value] of rows) {
      const row = body.insertRow();
      row.append(el("th", {}, label));
      for (const seat of [0, 1]) row.append(el("td", {}, String(value(game.seats[seat]))));
    }
    const longest = body.rows[4];
    game.seats.forEach((s, seat) => {
      const cell = longest.cells[seat];
      if (s.longest_turn_version) {
        cell.classList.add("link");
        cell.title = t("analysis.go_turn");
        cell.addEventListener("click", () => this.jump(s.longest_turn_version));
      }
    });
    return table;
  }

  /** Put game `g`'s charts and summary in place (only when the game changes) and move the
   * cursors to `version`. */
  show(g, version, lastVersion, chartsBox, summaryBox) {
    if (g !== this.shownGame) {
      this.shownGame = g;
      const parts = this.parts(g);
      chartsBox.replaceChildren();
      summaryBox.replaceChildren();
      if (parts) {
        const thinking = this.perTurn ? parts.turns : parts.thinking;
        chartsBox.append(parts.left.box, thinking.box);
        summaryBox.append(parts.summary);
      }
      // The match's score over its games: with one game it is that game's result, a flat line
      // (issue 31), so it shows from the second game on.
      if (this.scores.length > 1) chartsBox.append(this.scoreChart(lastVersion).box);
      chartsBox.hidden = !chartsBox.childElementCount;
    }
    const parts = this.built.get(g);
    if (parts) {
      parts.left.show(version);
      (this.perTurn ? parts.turns : parts.thinking).show(version);
    }
    this.matchChart?.show(version);
  }

  /** Thinking time per action ⇄ per turn. */
  togglePerTurn() {
    this.perTurn = !this.perTurn;
    this.shownGame = undefined;
  }
}

/** An arrow over the board for a fault's skipped compulsory move (an SVG laid over it). Pile
 * places are read once per layout (the board's grid does not move from one position to the next),
 * so a step onto a fault costs no extra layout. */
export class Arrow {
  constructor(container, board) {
    this.board = board;
    this.svg = el("svg:svg", { class: "arrow-layer", "aria-hidden": "true" });
    const defs = el("svg:defs");
    const marker = el("svg:marker", {
      id: "arrow-head",
      viewBox: "0 0 10 10",
      refX: 8,
      refY: 5,
      markerWidth: 5,
      markerHeight: 5,
      orient: "auto-start-reverse",
    });
    marker.append(el("svg:path", { d: "M 0 0 L 10 5 L 0 10 z" }));
    defs.append(marker);
    this.line = el("svg:line", { class: "skipped", "marker-end": "url(#arrow-head)" });
    this.line.append(el("svg:title"));
    this.svg.append(defs, this.line);
    this.svg.style.display = "none";
    container.append(this.svg);
    this.shown = null;
    this.spots = new Map(); // pile → its centre in the layer, for the board's current layout
    this.bottom = board.bottom;
    window.addEventListener("resize", () => this.spots.clear());
  }

  /** The centre of a pile's slot (where its first card lies) relative to the layer, and the
   * slot's half width and half height: [x, y, w/2, h/2]. */
  spot(name) {
    if (this.board.bottom !== this.bottom) {
      this.bottom = this.board.bottom;
      this.spots.clear();
    }
    let found = this.spots.get(name);
    if (!found) {
      const pile = this.board.pile(name);
      if (!pile) return null;
      const box = this.svg.parentElement.getBoundingClientRect();
      const r = (pile.querySelector(".slot") ?? pile).getBoundingClientRect();
      found = [r.left + r.width / 2 - box.left, r.top + r.height / 2 - box.top, r.width / 2, r.height / 2];
      this.spots.set(name, found);
    }
    return found;
  }

  /** Where the arrow from pile `from` to pile `to` starts (the source's centre) and ends: short
   * of the target's slot, its head at the slot's edge, so that the target card stays in sight
   * (issue 31: the head covered it). */
  ends(from, to) {
    const a = this.spot(from);
    const b = this.spot(to);
    if (!a || !b) return null;
    const dx = b[0] - a[0];
    const dy = b[1] - a[1];
    const length = Math.hypot(dx, dy);
    if (length < 1) return [a, b];
    // The fraction of the line inside the target's box, from its centre to its edge, and a gap.
    const inside = Math.min(dx ? b[2] / Math.abs(dx) : Infinity, dy ? b[3] / Math.abs(dy) : Infinity);
    const back = Math.min(0.9, inside + ARROW_GAP_PX / length);
    return [a, [b[0] - dx * back, b[1] - dy * back]];
  }

  /** Show the skipped move of `fault` (or hide the arrow for null). */
  show(fault, players) {
    const move = fault?.skipped ?? null;
    if (!move) {
      if (this.shown) this.svg.style.display = "none";
      this.shown = null;
      return;
    }
    if (move === this.shown?.skipped) return;
    const ends = this.ends(move.from, move.to);
    if (!ends) return;
    const [a, b] = ends;
    this.line.setAttribute("x1", a[0].toFixed(1));
    this.line.setAttribute("y1", a[1].toFixed(1));
    this.line.setAttribute("x2", b[0].toFixed(1));
    this.line.setAttribute("y2", b[1].toFixed(1));
    this.line.classList.toggle("missed", !!fault.missed);
    this.line.firstChild.textContent = t("analysis.compulsory", { move: moveWords(move, players) });
    this.svg.dataset.move = `${move.from}-${move.to}`;
    this.svg.style.display = "";
    this.shown = fault;
  }
}

/** What a seat could do at one position, in words: "A♠ from Ann's reserve to the ♠ foundation",
 * "turn a card", "call Crapette!" — each with the rule it would have broken. */
export function optionWords(option, view, players) {
  const [text, rule] = option;
  const m = /^([A-Z][0-7])-([A-Z][0-7])/.exec(text);
  let words;
  if (m) {
    const top = view?.piles?.[m[1]]?.at(-1) ?? null;
    words = moveWords({ from: m[1], to: m[2], card: top }, players);
  } else if (/^turn [HIJ][01]$/.test(text)) {
    // A turn from a named hand (three hands, rules.md §10): the hand in words, never its code.
    words = t("analysis.turn_from", { pile: pileWords(text.slice(5), { viewer: null, players }) });
  } else {
    const key = { turn: "turn", discard: "discard", pass: "pass", crapette: "call", "accept-draw": "accept_draw" }[text];
    words = key ? t(`analysis.${key}`, { call: t("call.word") }) : text;
  }
  return { words, rule, from: m?.[1] ?? null, to: m?.[2] ?? null };
}

