// One tournament's page (/tournament/<id>): its standings with the tie-breaks and the
// crosstable, every round's tables with their results, and for this browser's person his next
// table, or for its director the orders. It follows the tournament by polling
// GET /api/tournaments/<id> every 2 s with the last ETag (a 304 while nothing changed;
// docs/protocol.md § Tournaments).

import { mountLanguageSwitch, t } from "./i18n.js";
import { postJSON, RequestError, saveSeat } from "./net.js";
import { forgetPlayer, loadDirector, loadPlayer, saveDirector, savePlayer } from "./tournament_store.js";
import { shownName } from "./words.js";

const $ = (id) => document.getElementById(id);
const POLL_MS = 2000;
const id = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] ?? "");
let etag = null;
let view = null;

function el(tag, text = "", attrs = {}) {
  const node = document.createElement(tag);
  if (text !== "") node.textContent = String(text);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

function points(x) {
  return Number.isInteger(x) ? String(x) : `${Math.floor(x) || ""}½`;
}

async function fetchView() {
  const headers = { Accept: "application/json" };
  if (etag) headers["If-None-Match"] = etag;
  const res = await fetch(`/api/tournaments/${encodeURIComponent(id)}`, { headers });
  if (res.status === 304) return false;
  const body = await res.json().catch(() => null);
  if (!res.ok) throw new RequestError(res.status, body);
  etag = res.headers.get("ETag");
  view = body;
  return true;
}

// -- standings and rounds ---------------------------------------------------------------------

// The tournament's bots by name (a row of `players` with `bot`), so that a bot is marked as one
// wherever it is named: pairings, results, byes, "your next table" (issue 39).
let bots = new Set();

/** A player's name as shown, a bot's marked "(bot)" in the page's language ("Stella (bot)"),
 *  unless its name says so already ("steady bot" is shown as "robot régulier"). */
function named(name) {
  const shown = shownName(name);
  return bots.has(name) && shown === name && !/\bbot$/.test(name) ? `${shown}${t("seat.bot")}` : shown;
}

function standingsTable(v) {
  const table = el("table", "", { class: "crosstable", "data-testid": "standings-table" });
  const head = table.createTHead().insertRow();
  const cols = ["rank", "player", "points", "buchholz", "sb", "direct", "cards"];
  for (const c of cols) head.append(el("th", t(`tournament.col.${c}`), { title: t(`tournament.col.${c}.help`) }));
  for (const r of v.rounds) head.append(el("th", t("tournament.col.round", { n: r.round })));
  const body = table.createTBody();
  for (const row of v.standings) {
    const tr = body.insertRow();
    tr.dataset.player = row.name;
    if (row.withdrawn) tr.className = "withdrawn";
    const name = el("td");
    const link = el("a", shownName(row.name), { href: `/players/${encodeURIComponent(row.name)}` });
    name.append(link);
    if (row.bot) name.append(" ", el("small", t("tournament.bot")));
    tr.append(el("td", row.rank), name, el("td", points(row.score), { "data-testid": "score" }));
    tr.append(el("td", points(row.buchholz)), el("td", points(row.sonneborn_berger)));
    tr.append(el("td", points(row.direct)), el("td", row.card_points));
    for (const cell of row.rounds) {
      const td = el("td", cell.mark === "bye" ? t("tournament.bye") : cell.mark, { class: "cell" });
      if (cell.opponent) td.append(el("small", named(cell.opponent)));
      tr.append(td);
    }
  }
  return table;
}

function tableLine(table) {
  const li = el("li", "", { "data-match": table.match_id });
  li.append(el("span", t("tournament.table", { n: table.table })));
  const [a, b] = table.players;
  const names = el("span");
  const first = el("span", named(a));
  const second = el("span", named(b));
  names.append(first, " – ", second);
  li.append(names);
  const r = table.result;
  if (r) {
    if (r.winner === 0) first.className = "winner";
    if (r.winner === 1) second.className = "winner";
    const said = r.kind === "forfeit"
      ? t("tournament.forfeit", { names: r.absent.map(named).join(", ") })
      : r.winner === null
        ? t("tournament.drawn", { totals: r.totals.join("\u2060–\u2060") })
        : t("tournament.won", { name: named(table.players[r.winner]), totals: r.totals.join("\u2060–\u2060") });
    li.append(el("span", said, { "data-testid": "result" }));
  } else {
    const live = table.live_totals ? t("tournament.playing_score", { totals: table.live_totals.join("\u2060–\u2060") }) : t("tournament.playing");
    li.append(el("span", live, { "data-testid": "result" }));
  }
  li.append(el("a", r ? t("tournament.replay") : t("tournament.watch"), {
    href: r ? `/replay/${table.match_id}` : table.table_url,
  }));
  return li;
}

function roundsList(v) {
  const box = document.createDocumentFragment();
  for (const r of [...v.rounds].reverse()) {
    const section = el("div", "", { class: "round", "data-round": r.round });
    section.append(el("h3", t("tournament.round", { n: r.round })));
    const list = el("ul");
    for (const table of r.tables) list.append(tableLine(table));
    for (const name of r.byes) list.append(el("li", t("tournament.bye_of", { name: named(name) })));
    section.append(list);
    box.append(section);
  }
  if (!v.rounds.length) box.append(el("p", t("tournament.no_round"), { class: "hint" }));
  return box;
}

// -- the person at this browser ---------------------------------------------------------------

async function showMe(v) {
  const box = $("me");
  const mine = loadPlayer(id);
  if (mine) {
    let me;
    try {
      me = await postJSON(`/api/tournaments/${encodeURIComponent(id)}/me`, { player_token: mine.token });
    } catch (err) {
      // Over the address's join budget (docs/deploy.md § Security): what the box shows stays,
      // and the next poll asks again.
      if (err.status === 429) {
        etag = null;
        return;
      }
      if (err.status === 403) forgetPlayer(id); // released by the director: claim again
      return showClaim(v, box);
    }
    box.replaceChildren(el("h2", t("tournament.you_are", { name: me.name })));
    const next = me.next_table;
    const line = el("p", "", { class: "next-table", "data-testid": "next-table" });
    if (next) {
      // The table page finds the seat this token holds there, as for any table.
      saveSeat(next.match_id, next.seat, mine.token, me.name);
      const opponent = named(next.opponent);
      line.append(t("tournament.next_table", { round: next.round, table: next.table, opponent }));
      line.append(el("a", t("tournament.go"), { href: next.table_url, class: "primary", "data-testid": "go-table" }));
    } else {
      line.textContent = v.status === "finished" ? t("tournament.over") : t("tournament.no_table");
    }
    box.append(line);
    return;
  }
  showClaim(v, box);
}

function showClaim(v, box) {
  const free = v.players.filter((p) => !p.bot && !p.claimed);
  box.replaceChildren(el("h2", t("tournament.who")));
  if (!free.length) {
    box.append(el("p", t("tournament.all_claimed"), { class: "hint" }));
    return;
  }
  const select = el("select", "", { "data-testid": "claim-name", "aria-label": t("tournament.who") });
  for (const p of free) select.append(new Option(p.name, p.name));
  const button = el("button", t("tournament.this_is_me"), { type: "button", "data-testid": "claim" });
  const msg = el("span", "", { class: "message", role: "status" });
  button.addEventListener("click", async () => {
    try {
      const claimed = await postJSON(`/api/tournaments/${encodeURIComponent(id)}/claim`, { name: select.value });
      savePlayer(id, claimed.name, claimed.player_token);
      await refresh(true);
    } catch (err) {
      msg.textContent = err.message;
    }
  });
  box.append(select, " ", button, " ", msg);
}

// -- the director -----------------------------------------------------------------------------

function order(action, extra = {}) {
  return postJSON(`/api/tournaments/${encodeURIComponent(id)}/director`, {
    director_token: loadDirector(id),
    action,
    ...extra,
  });
}

function orderButton(label, action, extra, testid, msg) {
  const button = el("button", label, { type: "button", "data-testid": testid });
  button.addEventListener("click", async () => {
    try {
      await order(action, extra());
      msg.textContent = "";
      await refresh(true);
    } catch (err) {
      msg.textContent = err.message;
    }
  });
  return button;
}

function showDirector(v) {
  const box = $("director");
  if (!loadDirector(id)) return;
  box.hidden = false;
  const msg = el("span", "", { class: "message", role: "status", "data-testid": "director-msg" });
  box.replaceChildren(el("h2", t("tournament.director")));
  const link = `${location.origin}/tournament/${id}#director=${loadDirector(id)}`;
  const keep = el("p", t("tournament.director_link"), { class: "hint" });
  keep.append(" ", el("code", link, { "data-testid": "director-link" }));
  box.append(keep);
  const orders = el("div", "", { class: "director-orders" });
  if (v.status === "registering") {
    orders.append(orderButton(t("tournament.start"), "start", () => ({}), "start", msg));
  }
  if (v.status === "playing") {
    const current = v.rounds[v.rounds.length - 1];
    for (const table of current?.tables ?? []) {
      if (table.result) continue;
      for (const name of table.players) {
        if (bots.has(name)) continue; // a bot always comes: "did not come" is for people only
        const label = t("tournament.no_show", { name, n: table.table });
        orders.append(orderButton(label, "no_show", () => ({ match_id: table.match_id, absent: [name] }), `no-show-${name}`, msg));
      }
    }
  }
  if (v.status !== "finished") {
    const still = v.players.filter((p) => !p.withdrawn);
    const who = el("select", "", { "aria-label": t("tournament.player") });
    for (const p of still) who.append(new Option(named(p.name), p.name));
    orders.append(who, orderButton(t("tournament.withdraw"), "withdraw", () => ({ name: who.value }), "withdraw", msg));
    const claimed = v.players.filter((p) => p.claimed);
    if (claimed.length) {
      const whose = el("select", "", { "aria-label": t("tournament.player") });
      for (const p of claimed) whose.append(new Option(p.name, p.name));
      orders.append(whose, orderButton(t("tournament.release"), "release", () => ({ name: whose.value }), "release", msg));
    }
    if (v.status === "playing" && !v.finish_requested) {
      orders.append(orderButton(t("tournament.finish"), "finish", () => ({}), "finish", msg));
    }
  }
  box.append(orders, msg);
}

// -- the page ---------------------------------------------------------------------------------

function statusLine(v) {
  const format = t(`tournaments.format.${v.format}`);
  const status = t(`tournament.status.${v.status}`, { round: v.current_round, total: v.rounds_total ?? "?" });
  return `${format} · ${status}`;
}

async function refresh(force = false) {
  if (force) etag = null;
  if (!(await fetchView())) return;
  const v = view;
  bots = new Set(v.players.filter((p) => p.bot).map((p) => p.name));
  $("heading").textContent = v.name;
  document.title = `Crapette — ${v.name}`;
  $("status").textContent = statusLine(v) + (v.finish_requested && v.status === "playing" ? ` · ${t("tournament.finishing")}` : "");
  $("standings").replaceChildren(standingsTable(v));
  $("rounds").replaceChildren(roundsList(v));
  showDirector(v);
  await showMe(v);
  document.body.dataset.version = String(v.version);
  document.body.dataset.status = v.status;
}

async function main() {
  await mountLanguageSwitch();
  // A director's link (#director=TOKEN) from another device: kept here, then out of sight.
  const given = new URLSearchParams(location.hash.slice(1)).get("director");
  if (given) {
    saveDirector(id, given);
    history.replaceState(null, "", location.pathname + location.search);
  }
  await refresh();
  window.tournamentReady = true;
  setInterval(() => refresh().catch(() => {}), POLL_MS);
}

main().catch((err) => {
  $("status").textContent = err.status === 404 ? t("tournament.unknown") : t("tournament.load_failed", { reason: err.message });
  window.tournamentReady = true;
});
