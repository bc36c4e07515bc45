// The ratings on the players pages: the leaderboard on /players, one name's rating and its graph
// over time on /players/<name>, from GET /api/ratings and /api/ratings/<name> (Glicko-2 over
// the rated matches: docs/tournaments.md § Ratings; docs/protocol.md).

import { lang, t } from "./i18n.js";
import { shownName } from "./words.js";

const SVG = "http://www.w3.org/2000/svg";

function el(tag, text = "", attrs = {}) {
  const node = document.createElement(tag);
  if (text !== "") node.textContent = String(text);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

function svg(tag, attrs = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

/** "1662?" for a provisional rating, as lichess marks one. */
export function ratingText(row) {
  return `${Math.round(row.rating)}${row.provisional ? "?" : ""}`;
}

export function leaderboard(rows) {
  const box = document.createDocumentFragment();
  box.append(el("h2", t("ratings.heading")), el("p", t("ratings.hint"), { class: "hint" }));
  if (!rows.length) {
    box.append(el("p", t("ratings.none")));
    return box;
  }
  const table = el("table", "", { class: "stats", "data-testid": "leaderboard" });
  const head = table.createTHead().insertRow();
  for (const key of ["rank", "player", "rating", "rd", "matches", "record"]) {
    head.append(el("th", t(`ratings.col.${key}`)));
  }
  const body = table.createTBody();
  for (const row of rows) {
    const tr = body.insertRow();
    tr.dataset.player = row.name;
    const name = el("td");
    name.append(el("a", shownName(row.name), { href: `/players/${encodeURIComponent(row.name)}` }));
    tr.append(el("td", row.rank), name, el("td", ratingText(row), { "data-testid": "rating" }));
    tr.append(el("td", `± ${Math.round(row.rd)}`), el("td", row.matches));
    tr.append(el("td", `${row.wins}–${row.draws}–${row.losses}`));
  }
  box.append(table);
  return box;
}

/** One name's rating after each rated match: the line, and its deviation as a band. */
export function ratingGraph(rated) {
  const box = document.createDocumentFragment();
  box.append(el("h2", t("ratings.heading")));
  if (!rated) {
    box.append(el("p", t("ratings.unrated")));
    return box;
  }
  const said = t("ratings.rating_of", {
    rating: ratingText(rated),
    rd: Math.round(rated.rd),
    count: rated.matches,
  });
  box.append(el("p", said, { "data-testid": "rating-line" }));
  const points = [{ rating: 1500, rd: 350 }, ...rated.history];
  const width = 640, height = 220, pad = 36;
  const low = Math.min(...points.map((p) => p.rating - p.rd));
  const high = Math.max(...points.map((p) => p.rating + p.rd));
  const x = (i) => pad + ((width - 2 * pad) * i) / Math.max(1, points.length - 1);
  const y = (r) => height - pad - ((height - 2 * pad) * (r - low)) / Math.max(1, high - low);
  const graph = svg("svg", {
    viewBox: `0 0 ${width} ${height}`,
    class: "rating-graph",
    role: "img",
    "aria-label": `${t("ratings.graph")}${t("punct.colon")}${said}`,
    "data-testid": "rating-graph",
  });
  const upper = points.map((p, i) => `${x(i)},${y(p.rating + p.rd)}`);
  const lower = points.map((p, i) => `${x(i)},${y(p.rating - p.rd)}`).reverse();
  graph.append(svg("polygon", { points: [...upper, ...lower].join(" "), class: "band" }));
  graph.append(svg("polyline", { points: points.map((p, i) => `${x(i)},${y(p.rating)}`).join(" "), class: "line" }));
  for (const [label, r] of [[Math.round(high), high], [Math.round(low), low]]) {
    const text = svg("text", { x: 2, y: y(r) + 4, class: "axis" });
    text.textContent = String(label);
    graph.append(text);
  }
  points.forEach((p, i) => {
    if (i === 0) return; // the starting point, before any match
    const dot = svg("circle", { cx: x(i), cy: y(p.rating), r: 4, class: "point" });
    const title = svg("title");
    title.textContent = `${new Date(p.at_ms).toLocaleString(lang)} — ${shownName(p.opponent)}${t("punct.colon")}${Math.round(p.rating)} ± ${Math.round(p.rd)}`;
    dot.append(title);
    graph.append(dot);
  });
  box.append(el("h3", t("ratings.graph")), graph);
  return box;
}
