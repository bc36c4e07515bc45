// The lobby: open a table (rules preset, match target, time limit, a person or a bot), share its
// invite link, and join or watch the tables already open.

import { lanBase, renderInvite } from "./invite.js";
import { getJSON, loadSeat, postJSON, saveName, saveSeat, savedName } from "./net.js";

const $ = (id) => document.getElementById(id);
let presets = [];
let serverInfo = null;

function say(text, kind = "refused") {
  const m = $("create-msg");
  m.textContent = text;
  m.className = `message ${text ? kind : ""}`;
}

async function loadPresets() {
  presets = (await getJSON("/api/presets")).presets;
  const select = $("preset");
  select.innerHTML = "";
  for (const p of presets) {
    const o = document.createElement("option");
    o.value = p.name;
    o.textContent = p.name;
    select.append(o);
  }
  showPreset();
}

function showPreset() {
  const p = presets.find((x) => x.name === $("preset").value);
  const r = p?.ruleset ?? {};
  const limit = r.move_time_limit_s ? ` ${r.move_time_limit_s} s per turn.` : "";
  $("preset-desc").textContent = `${p?.description ?? ""}${limit}`;
}

async function createTable(e) {
  e.preventDefault();
  const name = $("name").value.trim();
  if (!name) return say("Type your name first.");
  saveName(name);
  const body = { name, preset: $("preset").value, bot: $("opponent").value || null };
  if ($("match").value) body.match = $("match").value;
  if (body.bot) body.bot_pace = $("bot-pace").value;
  const limit = $("limit").value;
  if (limit === "none") body.move_time_limit_s = null;
  else if (limit) body.move_time_limit_s = Number(limit);
  $("create-btn").disabled = true;
  try {
    const res = await postJSON("/api/tables", body);
    saveSeat(res.match_id, res.seat, res.seat_token, name);
    if (body.bot) {
      location.href = res.table_url;
      return;
    }
    say("");
    const url = res.invite_url ?? `${lanBase(serverInfo)}${res.table_url}`;
    const invite = $("invite");
    invite.hidden = false;
    renderInvite(invite, url, "Table open. Send this link to your opponent, or let them scan:");
    const go = document.createElement("a");
    go.href = res.table_url;
    go.textContent = "Sit down at your table →";
    go.className = "go";
    go.dataset.testid = "go-table";
    invite.querySelector("[data-testid=table-link]")?.remove();
    invite.append(go);
    refreshTables();
  } catch (err) {
    const details = err.details ? ` ${JSON.stringify(err.details)}` : "";
    say(`${err.message}${details}`);
  } finally {
    $("create-btn").disabled = false;
  }
}

function seatNames(t) {
  // A bot's seat is named after it already ("steady bot"): no "(bot)" after that.
  return t.seats.map((s) => (s.bot ? (s.name ?? `${s.bot} bot`) : (s.name ?? "free seat")));
}

function tableItem(t) {
  const li = document.createElement("li");
  li.dataset.match = t.match_id;
  const what = document.createElement("span");
  what.className = "what";
  const names = seatNames(t).join(" v ");
  const score = t.status === "open" ? "" : ` — ${t.totals.join("–")}`;
  what.textContent = `${t.preset}: ${names}${score}`;
  li.append(what);
  const mine = loadSeat(t.match_id);
  if (mine && t.status !== "finished") {
    const back = document.createElement("a");
    back.href = `/table/${t.match_id}`;
    back.textContent = "Your table";
    li.append(back);
    return li;
  }
  if (t.status === "open") {
    const join = document.createElement("button");
    join.textContent = "Join";
    join.addEventListener("click", () => joinTable(t.match_id));
    li.append(join);
  }
  const watch = document.createElement("a");
  if (t.status === "finished") {
    watch.href = `/replay/${t.match_id}`;
    watch.textContent = "Replay";
  } else {
    watch.href = `/table/${t.match_id}`;
    watch.textContent = "Watch";
  }
  li.append(watch);
  return li;
}

async function joinTable(matchId) {
  const name = $("name").value.trim() || savedName();
  if (!name) {
    say("Type your name first (in the form on the left).");
    $("name").focus();
    return;
  }
  saveName(name);
  try {
    const res = await postJSON(`/api/tables/${encodeURIComponent(matchId)}/join`, { name });
    saveSeat(matchId, res.seat, res.seat_token, name);
    location.href = `/table/${matchId}`;
  } catch (err) {
    say(err.message);
    refreshTables();
  }
}

async function refreshTables() {
  let tables;
  try {
    tables = (await getJSON("/api/tables")).tables;
  } catch {
    return;
  }
  const lists = { open: $("open-tables"), playing: $("live-tables"), finished: $("finished-tables") };
  for (const [status, ul] of Object.entries(lists)) {
    ul.innerHTML = "";
    const mine = tables.filter((t) => t.status === status);
    for (const t of mine) ul.append(tableItem(t));
    if (!mine.length) {
      const li = document.createElement("li");
      li.textContent = status === "open" ? "No open table: open one!" : "None.";
      li.className = "none";
      ul.append(li);
    }
  }
}

/** Upload a record file (JSON or text): the server checks it and stores it as a finished match. */
async function uploadRecord(e) {
  e.preventDefault();
  const file = $("record-file").files?.[0];
  const msg = $("upload-msg");
  if (!file) {
    msg.textContent = "Choose a record file first.";
    msg.className = "message refused";
    return;
  }
  const form = new FormData();
  form.append("file", file);
  const res = await fetch("/api/records", { method: "POST", body: form });
  const body = await res.json().catch(() => null);
  if (!res.ok) {
    msg.textContent = body?.message ?? `HTTP ${res.status}`;
    msg.className = "message refused";
    return;
  }
  location.href = body.replay_url ?? `/replay/${body.match_id}`;
}

$("name").value = savedName();
$("upload").addEventListener("submit", uploadRecord);
$("preset").addEventListener("change", showPreset);
$("create").addEventListener("submit", createTable);
serverInfo = await getJSON("/api/server-info").catch(() => null);
await loadPresets().catch((err) => say(`Could not load the rules presets: ${err.message}`));
await refreshTables();
setInterval(refreshTables, 3000);
window.lobbyReady = true;
