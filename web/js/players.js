// The player statistics page: /players (every name seen here) and /players/<name> (one player),
// from GET /api/players and /api/players/<name> (docs/protocol.md).

import { getJSON } from "./net.js";

const $ = (id) => document.getElementById(id);

const COLUMNS = [
  ["games", "games", (p) => p.games],
  ["wins", "games won", (p) => p.wins],
  ["points", "points", (p) => p.points],
  ["faults/100", "faults per 100 actions", (p) => (p.faults_per_100_actions ?? "–")],
  ["calls right", "right calls among all calls made", (p) => percent(p.call_accuracy)],
  ["missed", "faults of the opponent left uncalled", (p) => p.missed_calls],
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
  const a = cell("a", name);
  a.href = `/players/${encodeURIComponent(name)}`;
  return a;
}

function query() {
  const since = new URLSearchParams(location.search).get("since");
  return since ? `?since=${encodeURIComponent(since)}` : "";
}

function table(players) {
  const t = document.createElement("table");
  t.className = "stats";
  t.dataset.testid = "players-table";
  const head = t.createTHead().insertRow();
  head.append(cell("th", "player"));
  for (const [title, help] of COLUMNS) head.append(cell("th", title, { title: help }));
  const body = t.createTBody();
  for (const p of players) {
    const row = body.insertRow();
    const name = document.createElement("td");
    name.append(playerLink(p.name));
    row.append(name);
    for (const [, , value] of COLUMNS) row.append(cell("td", value(p)));
  }
  return t;
}

function figures(p) {
  const dl = document.createElement("dl");
  dl.className = "figures";
  dl.dataset.testid = "player-figures";
  const items = [
    ["matches", `${p.matches} (${p.matches_won} won)`],
    ["games", p.games],
    ["games won", p.wins],
    ["points", p.points],
    ["actions", p.actions],
    ["faults", p.faults],
    ["faults per 100 actions", p.faults_per_100_actions ?? "–"],
    ["calls", `${p.right_calls} right, ${p.wrong_calls} wrong`],
    ["call accuracy", percent(p.call_accuracy)],
    ["missed calls", p.missed_calls],
    ["cards to the foundations", p.to_foundations],
  ];
  for (const [k, v] of items) dl.append(cell("dt", k), cell("dd", v));
  return dl;
}

function recent(p) {
  const list = document.createElement("ul");
  list.className = "game-list";
  for (const m of p.recent) {
    const li = document.createElement("li");
    const when = new Date(m.started_at_ms).toLocaleString();
    const outcome = m.finished ? (m.won ? "won" : "lost") : "not finished";
    const what = cell("span", `${when}: against `);
    what.className = "what";
    what.append(playerLink(m.opponent), ` — ${m.totals.join("–")}, ${m.games} game(s), ${outcome}`);
    const replay = cell("a", "replay");
    replay.href = `/replay/${encodeURIComponent(m.match_id)}`;
    li.append(what, replay);
    list.append(li);
  }
  return list;
}

async function main() {
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
    const data = await getJSON(`/api/players${query()}`);
    $("status").textContent = data.players.length
      ? `${data.players.length} player(s).`
      : "Nobody has finished a game here yet.";
    if (data.players.length) content.append(table(data.players));
    return;
  }
  $("heading").textContent = name;
  document.title = `Crapette — ${name}`;
  const p = await getJSON(`/api/players/${encodeURIComponent(name)}${query()}`);
  $("status").textContent = "";
  content.append(figures(p), cell("h2", "Latest matches"), recent(p));
}

main()
  .then(() => (window.playersReady = true))
  .catch((err) => {
    $("status").textContent = err.status === 404 ? err.message : `Could not load: ${err.message}`;
    window.playersReady = true;
  });
