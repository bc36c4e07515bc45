// The lobby: open a table (rules preset, match target, time limit, a person or a bot), share its
// invite link, and join or watch the tables already open.

import { formatNumber, mountLanguageSwitch, t } from "./i18n.js";
import { lanBase, renderInvite } from "./invite.js";
import { emitAck, getJSON, loadSeat, openSocket, postJSON, saveName, saveSeat, savedName } from "./net.js";
import { loadCatalogue, optionNamed, valueLabel } from "./ruleset_words.js";
import { botWord, presetName, shownName } from "./words.js";

const $ = (id) => document.getElementById(id);
let presets = [];
let options = []; // every ruleset option in words (GET /api/presets: "options")
let bots = [];
let serverInfo = null;
// The form's select of each option (match and time per move sit in the main form, the others
// under "Advanced"), and the JSON value behind each of its entries, in order.
const selects = new Map();
const selectValues = new Map();

function say(text, kind = "refused") {
  const m = $("create-msg");
  m.textContent = text;
  m.className = `message ${text ? kind : ""}`;
}

async function loadPresets() {
  ({ presets, options, bots } = await loadCatalogue(getJSON));
  const select = $("preset");
  select.innerHTML = "";
  for (const p of presets) select.append(new Option(presetName(p.name), p.name));
  for (const b of bots) {
    const o = new Option(t("lobby.opponent_bot", { name: botWord(b.name) }), b.name);
    o.title = b.description;
    $("opponent").append(o);
  }
  buildOptionFields();
  showPreset();
  showOpponent();
}

/** One labelled select per option, with its one-line explanation; values from the server. */
function buildOptionFields() {
  // The match target, the time per move and a table of three or four (rotation, docs/spec/rules.md
  // §10) sit in the main form; a server without rotation tables leaves that row hidden.
  const main = { match: $("match"), move_time_limit_s: $("limit"), rotation: $("rotation") };
  const advanced = $("advanced-options");
  for (const option of options) {
    let select = main[option.name];
    if (select) {
      $(`${select.id}-help`).textContent = option.help;
      select.labels[0].textContent = option.label;
      select.closest(".form-row").hidden = false;
    } else {
      const row = document.createElement("div");
      row.className = "form-row";
      row.dataset.option = option.name;
      const label = document.createElement("label");
      select = document.createElement("select");
      select.id = `opt-${option.name}`;
      label.htmlFor = select.id;
      label.textContent = option.label;
      const help = document.createElement("span");
      help.className = "hint";
      help.id = `${select.id}-help`;
      help.textContent = option.help;
      select.setAttribute("aria-describedby", help.id);
      row.append(label, select, help);
      advanced.append(row);
    }
    select.addEventListener("change", showChanged);
    selects.set(option.name, select);
  }
}

/** Fill every option's select with the values, the chosen preset's value selected. */
function prefill(ruleset) {
  for (const option of options) {
    const select = selects.get(option.name);
    const values = [...option.values];
    if (!values.some((v) => v.value === ruleset[option.name])) {
      values.push({ value: ruleset[option.name], label: valueLabel(option, ruleset[option.name]) });
    }
    select.innerHTML = "";
    for (const v of values) select.append(new Option(v.label, String(v.value ?? "none")));
    selectValues.set(option.name, values.map((v) => v.value));
    select.selectedIndex = selectValues.get(option.name).indexOf(ruleset[option.name]);
  }
}

function chosenPreset() {
  return presets.find((x) => x.name === $("preset").value);
}

/** The options whose chosen value differs from the preset's: what the table changes. */
function changes() {
  const ruleset = chosenPreset()?.ruleset ?? {};
  const out = {};
  for (const [name, select] of selects) {
    const value = selectValues.get(name)?.[select.selectedIndex];
    if (value !== undefined && value !== ruleset[name]) out[name] = value;
  }
  return out;
}

function showPreset() {
  const p = chosenPreset();
  $("preset-desc").textContent = p?.description ?? "";
  prefill(p?.ruleset ?? {});
  showChanged();
}

function showChanged() {
  showOpponent();
  const changed = Object.keys(changes());
  const names = changed.map((n) => optionNamed(options, n)?.label.toLowerCase() ?? n);
  const preset = presetName($("preset").value);
  $("advanced-state").textContent = changed.length
    ? t("lobby.changed_from", { preset, names: names.join(", ") })
    : t("lobby.as_in", { preset });
}

/** The chosen rotation mode ("winner_out", "loser_out"), or null for a table of two. */
function chosenRotation() {
  const select = selects.get("rotation");
  const value = select ? selectValues.get("rotation")?.[select.selectedIndex] : null;
  return value && value !== "off" ? value : null;
}

function showOpponent() {
  const bot = bots.find((b) => b.name === $("opponent").value);
  const rotation = chosenRotation();
  let text = bot ? bot.description : t("lobby.opponent_person_desc");
  if (rotation) text = `${text} ${t(bot ? "lobby.rotation_bot_desc" : "lobby.rotation_desc")}`;
  $("opponent-desc").textContent = text;
}

async function createTable(e) {
  e.preventDefault();
  const name = $("name").value.trim();
  if (!name) return say(t("lobby.type_name"));
  saveName(name);
  const body = {
    name,
    preset: $("preset").value,
    bot: $("opponent").value || null,
    options: changes(),
  };
  if (body.bot) body.bot_pace = $("bot-pace").value;
  $("create-btn").disabled = true;
  try {
    const res = await postJSON("/api/tables", body);
    saveSeat(res.match_id, res.seat, res.seat_token, name);
    if (body.bot) {
      location.href = res.table_url;
      return;
    }
    say("");
    showInvite(res);
    refreshTables();
  } catch (err) {
    // A refused name's message says it all; other refusals add marshmallow's field messages.
    const details = err.details && !err.rule ? ` ${JSON.stringify(err.details)}` : "";
    say(`${err.message}${details}`);
  } finally {
    $("create-btn").disabled = false;
  }
}

// The host of the table whose invite this page shows is at it while he waits here: his seat's
// socket keeps the table in the lobby's lists (an open table nobody is at leaves them a minute
// after its host has gone: docs/protocol.md, `idle`).
let hostSocket = null;

function stayAtTable(res) {
  hostSocket?.disconnect();
  const socket = openSocket();
  socket.on("connect", () => {
    emitAck(socket, "join_table", { match_id: res.match_id, seat_token: res.seat_token, last_version: null }).catch(
      () => {}, // the lobby goes on without it: the table page joins for itself
    );
  });
  hostSocket = socket;
}

/** The new table's invite in place of the form, at the top of the page: seen without scrolling. */
function showInvite(res) {
  stayAtTable(res);
  const url = res.invite_url ?? `${lanBase(serverInfo)}${res.table_url}`;
  const invite = $("invite");
  invite.hidden = false;
  $("create").hidden = true;
  $("create-title").textContent = t("lobby.table_open");
  renderInvite(invite, url, t(chosenRotation() ? "lobby.invite_note_rotation" : "lobby.invite_note"));
  const go = document.createElement("a");
  go.href = res.table_url;
  go.textContent = t("lobby.sit_down");
  go.className = "go";
  go.dataset.testid = "go-table";
  const again = document.createElement("button");
  again.type = "button";
  again.textContent = t("lobby.open_another");
  again.addEventListener("click", () => {
    hostSocket?.disconnect();
    hostSocket = null;
    invite.hidden = true;
    $("create").hidden = false;
    $("create-title").textContent = t("lobby.open_title");
  });
  invite.append(go, again);
  go.focus();
}

function seatNames(table) {
  // A bot's seat is named after it already ("steady bot"): no "(bot)" after that.
  return table.seats.map((s) =>
    s.bot ? (shownName(s.name) ?? t("lobby.bot_seat", { bot: botWord(s.bot) })) : (s.name ?? t("lobby.free_seat")),
  );
}

/** What a row says of the match: the game in play ("game 2, turn 14 · cards left 23–31",
 * issue 39: a game at turn 30 read "0–0" in match points), else a finished match's points. */
function tableScore(table) {
  const game = table.game;
  if (table.status === "playing" && game) {
    const [a, b] = game.cards_left;
    return ` — ${t("lobby.in_play", { game: game.index + 1, turn: game.turn, a, b })}`;
  }
  if (table.status === "finished") return ` — ${table.totals.join("–")}`;
  return "";
}

function tableItem(table) {
  const li = document.createElement("li");
  li.dataset.match = table.match_id;
  const what = document.createElement("span");
  what.className = "what";
  const [a, b] = seatNames(table);
  const score = tableScore(table);
  // A rotation table (three or four people): the seats, then how many wait in the queue.
  const waits = table.rotation && table.status !== "finished";
  const queue = waits ? ` · ${t("lobby.queue_count", { count: table.rotation.queue.length })}` : "";
  const said = `${presetName(table.preset)}${t("punct.colon")}${t("lobby.versus", { a, b })}${score}${queue}`;
  // A score ("48–38") never breaks at its dash on a narrow screen: word joiners hold it (issue 39).
  what.textContent = said.replace(/(\d)–(\d)/g, "$1\u2060–\u2060$2");
  li.append(what);
  const mine = loadSeat(table.match_id);
  if (mine && table.status !== "finished") {
    const back = document.createElement("a");
    back.href = `/table/${table.match_id}`;
    back.textContent = t("lobby.your_table");
    li.append(back);
    return li;
  }
  const queueing = table.status === "playing" && Boolean(table.rotation?.can_join);
  if (table.status === "open" || queueing) {
    // The table page's join form shows the host and the rules before the guest sits down (or,
    // at a rotation table whose seats are taken, before he joins the queue).
    const join = document.createElement("a");
    join.href = `/table/${table.match_id}`;
    join.textContent = queueing ? t("lobby.join_queue") : t("lobby.join");
    join.className = "join";
    li.append(join);
  }
  const watch = document.createElement("a");
  if (table.status === "finished") {
    watch.href = `/replay/${table.match_id}`;
    watch.textContent = t("lobby.replay");
  } else {
    watch.href = `/table/${table.match_id}`;
    watch.textContent = t("lobby.watch");
  }
  li.append(watch);
  return li;
}

async function refreshTables() {
  let tables;
  let idleMinutes;
  try {
    const body = await getJSON("/api/tables");
    tables = body.tables;
    const minutes = (body.idle_after_s ?? 600) / 60;
    // In the page's language ("0,1" in French); whole minutes without a decimal.
    idleMinutes = formatNumber(minutes, Number.isInteger(minutes) ? 0 : 1);
  } catch {
    return;
  }
  const lists = { open: $("open-tables"), playing: $("live-tables"), finished: $("finished-tables") };
  for (const [status, ul] of Object.entries(lists)) {
    ul.innerHTML = "";
    const all = tables.filter((table) => table.status === status);
    // "Live games" are the matches someone is at: a table nobody has been at for a while
    // (`idle`, docs/protocol.md) is left out, unless it is one of this browser's own tables.
    const shown = all.filter((table) => !table.idle || loadSeat(table.match_id));
    for (const table of shown) ul.append(tableItem(table));
    if (!shown.length) {
      const li = document.createElement("li");
      li.textContent = status === "open" ? t("lobby.no_open") : t("lobby.none");
      li.className = "none";
      ul.append(li);
    }
    const hidden = all.length - shown.length;
    if (hidden) {
      const li = document.createElement("li");
      li.className = "none idle-note";
      li.dataset.testid = "idle-hidden";
      li.textContent = t("lobby.idle_hidden", { count: hidden, minutes: idleMinutes });
      ul.append(li);
    }
  }
}

/** POST the form to /api/records and say in `msg` how far it has come (docs/protocol.md §
 * Records, upload progress): the bytes sent (the request's own upload events), then what the
 * server says of the upload named by a random token (`GET /api/records/progress/<token>`, polled
 * five times a second: checking a few thousand moves may take under a second): waiting for a
 * worker, so many moves checked, storing. A long record (many MB, thousands of moves) is seconds
 * of work: the dialog says so instead of nothing.
 * Resolves to { ok, status, body }. */
function sendWithProgress(form, msg) {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  const token = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  let polling = null;
  let over = false;
  const poll = async () => {
    const res = await fetch(`/api/records/progress/${token}`).catch(() => null);
    const told = res?.ok ? await res.json().catch(() => null) : null;
    if (over) return;
    if (told?.stage === "queued") msg.textContent = t("lobby.upload_queued");
    else if (told?.stage === "checking") {
      const { done, total } = told.actions;
      const n = (x) => Number(x).toLocaleString(document.documentElement.lang || undefined);
      msg.textContent = t("lobby.upload_checking", { done: n(done), total: n(total) });
    } else if (told?.stage === "storing") msg.textContent = t("lobby.upload_storing");
    polling = setTimeout(poll, 200);
  };
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `/api/records?progress=${token}`);
    xhr.responseType = "text";
    xhr.upload.addEventListener("progress", (e) => {
      if (e.lengthComputable) {
        const percent = Math.floor((100 * e.loaded) / e.total);
        msg.textContent = t("lobby.upload_sending", { percent });
      }
    });
    xhr.upload.addEventListener("load", () => {
      msg.textContent = t("lobby.upload_queued");
      if (polling === null) polling = setTimeout(poll, 100);
    });
    const done = (status, text) => {
      over = true;
      clearTimeout(polling);
      let body = null;
      try {
        body = JSON.parse(text);
      } catch {
        body = null;
      }
      resolve({ ok: status >= 200 && status < 300, status, body });
    };
    xhr.addEventListener("load", () => done(xhr.status, xhr.responseText));
    xhr.addEventListener("error", () => done(0, ""));
    xhr.send(form);
  });
}

/** Upload a record file (JSON or text): the server checks it and stores it as a finished match.
 * `matchId` imports it under that id instead of the record's own. */
async function uploadRecord(matchId = null) {
  const file = $("record-file").files?.[0];
  const msg = $("upload-msg");
  if (!file) {
    msg.textContent = t("lobby.choose_file");
    msg.className = "message refused";
    return;
  }
  const form = new FormData();
  form.append("file", file);
  if (matchId) form.append("match_id", matchId);
  msg.className = "message info";
  const res = await sendWithProgress(form, msg);
  const body = res.body;
  if (res.ok) {
    location.href = body.replay_url ?? `/replay/${body.match_id}`;
    return;
  }
  msg.className = "message refused";
  msg.textContent = body?.message ?? t("lobby.http_error", { status: res.status });
  // Another id is offered for another match under this id, never for this very record again.
  $("upload-as").hidden = body?.code !== "conflict" || Boolean(body.same_record);
  if (body?.code !== "conflict") return;
  // The id is taken: by this very match (then its replay is here already), or by another one.
  msg.textContent = body.same_record
    ? t("lobby.same_record", { id: body.match_id })
    : t("lobby.id_taken", { id: body.match_id });
  if (body.same_record) {
    const open = document.createElement("a");
    open.href = body.existing_replay_url;
    open.textContent = t("lobby.open_existing");
    open.dataset.testid = "existing-replay";
    msg.className = "message info";
    msg.append(open);
  }
  $("upload-id").value = body.free_id ?? "";
}

// The browser's own file button speaks the browser's language: the page draws its own (a label
// for the hidden input) and says the chosen file's name in the page's language.
$("record-file").addEventListener("change", () => {
  const file = $("record-file").files?.[0];
  $("record-file-name").textContent = file ? file.name : t("lobby.no_record");
});
$("upload").addEventListener("submit", (e) => {
  e.preventDefault();
  $("upload-as").hidden = true;
  uploadRecord();
});
$("upload-as").addEventListener("submit", (e) => {
  e.preventDefault();
  const id = $("upload-id").value.trim();
  if (id) uploadRecord(id);
});
$("name").value = savedName();
$("preset").addEventListener("change", showPreset);
$("opponent").addEventListener("change", showOpponent);
$("create").addEventListener("submit", createTable);
serverInfo = await getJSON("/api/server-info").catch(() => null);
await mountLanguageSwitch();
await loadPresets().catch((err) => say(t("lobby.presets_failed", { reason: err.message })));
await refreshTables();
setInterval(refreshTables, 3000);
window.lobbyReady = true;
