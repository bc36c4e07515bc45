// The player statistics page: /players (every name seen here) and /players/<name> (one player),
// from GET /api/players and /api/players/<name> (docs/protocol.md).

import { lang, mountLanguageSwitch, t } from "./i18n.js";
import { getJSON } from "./net.js";
import { leaderboard, ratingGraph } from "./ratings.js";
import { shownName } from "./words.js";

const $ = (id) => document.getElementById(id);

// [column key, value]: players.col.<key> is the heading, players.col.<key>.help its title.
const COLUMNS = [
  ["games", (p) => p.games],
  ["wins", (p) => p.wins],
  ["points", (p) => p.points],
  ["faults", (p) => (p.faults_per_100_actions ?? "–")],
  ["calls", (p) => percent(p.call_accuracy)],
  ["missed", (p) => p.missed_calls],
];

function percent(x) {
  return x === null || x === undefined ? "–" : `${Math.round(100 * x)}%`;
}

function cell(tag, text, attrs = {}) {
  const el = document.createElement(tag);
  el.textContent = String(text);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  return el;
}

function playerLink(name) {
  const a = cell("a", shownName(name)); // a bot's name in the page's language; the link as named
  a.href = `/players/${encodeURIComponent(name)}`;
  return a;
}

function query() {
  const since = new URLSearchParams(location.search).get("since");
  return since ? `?since=${encodeURIComponent(since)}` : "";
}

function table(players) {
  const stats = document.createElement("table");
  stats.className = "stats";
  stats.dataset.testid = "players-table";
  const head = stats.createTHead().insertRow();
  head.append(cell("th", t("players.col.player")));
  for (const [key] of COLUMNS) {
    head.append(cell("th", t(`players.col.${key}`), { title: t(`players.col.${key}.help`) }));
  }
  const body = stats.createTBody();
  for (const p of players) {
    const row = body.insertRow();
    const name = document.createElement("td");
    name.append(playerLink(p.name));
    row.append(name);
    for (const [, value] of COLUMNS) row.append(cell("td", value(p)));
  }
  return stats;
}

function figures(p) {
  const dl = document.createElement("dl");
  dl.className = "figures";
  dl.dataset.testid = "player-figures";
  const items = [
    ["matches", t("players.matches_won", { n: p.matches, won: p.matches_won })],
    ["games", p.games],
    ["wins", p.wins],
    ["points", p.points],
    ["actions", p.actions],
    ["faults_total", p.faults],
    ["faults_per_100", p.faults_per_100_actions ?? "–"],
    ["calls_made", t("players.calls_made", { right: p.right_calls, wrong: p.wrong_calls })],
    ["call_accuracy", percent(p.call_accuracy)],
    ["missed_calls", p.missed_calls],
    ["to_foundations", p.to_foundations],
  ];
  for (const [k, v] of items) dl.append(cell("dt", t(`players.fig.${k}`)), cell("dd", v));
  return dl;
}

function recent(p) {
  const list = document.createElement("ul");
  list.className = "game-list";
  for (const m of p.recent) {
    const li = document.createElement("li");
    const when = new Date(m.started_at_ms).toLocaleString(lang);
    const outcome = m.finished ? (m.won ? t("players.won") : t("players.lost")) : t("players.unfinished");
    const what = cell("span", t("players.against", { when }));
    what.className = "what";
    const rest = t("players.match_line", { totals: m.totals.join("\u2060–\u2060"), count: m.games, outcome });
    what.append(playerLink(m.opponent), rest);
    const replay = cell("a", t("table.replay"));
    replay.href = `/replay/${encodeURIComponent(m.match_id)}`;
    li.append(what, replay);
    list.append(li);
  }
  return list;
}

async function main() {
  await mountLanguageSwitch();
  const parts = location.pathname.split("/").filter(Boolean);
  const name = parts.length > 1 ? decodeURIComponent(parts.slice(1).join("/")) : null;
  const since = new URLSearchParams(location.search).get("since");
  if (since) $("since").value = since;
  $("since-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const q = new URLSearchParams(location.search);
    if ($("since").value) q.set("since", $("since").value);
    else q.delete("since");
    location.search = q.toString();
  });
  const content = $("content");
  if (name === null) {
    const ratings = await getJSON("/api/ratings");
    $("ratings").replaceChildren(leaderboard(ratings.ratings));
    const data = await getJSON(`/api/players${query()}`);
    $("status").textContent = data.players.length
      ? t("players.count", { count: data.players.length })
      : t("players.nobody");
    if (data.players.length) content.append(table(data.players));
    return;
  }
  $("heading").textContent = shownName(name);
  document.title = `Crapette — ${shownName(name)}`;
  // A name without a rated match is a state ("rated": false), not a 404 (docs/protocol.md).
  const rating = await getJSON(`/api/ratings?name=${encodeURIComponent(name)}`);
  const rated = rating.rated ? rating : null;
  $("ratings").replaceChildren(ratingGraph(rated));
  const p = await getJSON(`/api/players/${encodeURIComponent(name)}${query()}`);
  $("status").textContent = "";
  content.append(figures(p), cell("h2", t("players.latest")), recent(p));
}

main()
  .then(() => (window.playersReady = true))
  .catch((err) => {
    const name = decodeURIComponent(location.pathname.split("/").filter(Boolean).slice(1).join("/"));
    $("status").textContent =
      err.status === 404 ? t("players.unknown", { name }) : t("players.load_failed", { reason: err.message });
    window.playersReady = true;
  });
