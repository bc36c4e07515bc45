// The tournaments page: the list of this server's tournaments, and the form a director creates
// one with (POST /api/tournaments, docs/protocol.md § Tournaments). The director's token comes
// back once: it is kept in this browser (tournament_store.js) and the page goes to the
// tournament's own page, where the director starts it.

import { mountLanguageSwitch, t } from "./i18n.js";
import { getJSON, postJSON } from "./net.js";
import { saveDirector } from "./tournament_store.js";
import { botWord, presetName } from "./words.js";

const $ = (id) => document.getElementById(id);
const MATCHES = ["", "points:50", "points:150", "points:200", "points:300", "wins:1", "wins:2", "wins:3"];
let BOTS = [];

function option(value, text) {
  const el = document.createElement("option");
  el.value = value;
  el.textContent = text;
  return el;
}

/** One entrant row: a name, and who plays it (a person, or one of the bots). */
function entrantRow(name = "") {
  const li = document.createElement("li");
  const input = document.createElement("input");
  input.className = "entrant-name";
  input.maxLength = 40;
  input.value = name;
  input.setAttribute("aria-label", t("tournaments.player_name"));
  const who = document.createElement("select");
  who.className = "entrant-who";
  who.setAttribute("aria-label", t("tournaments.played_by"));
  who.append(option("", t("tournaments.a_person")));
  for (const bot of BOTS) who.append(option(bot.name, t("lobby.opponent_bot", { name: botWord(bot.name) })));
  who.addEventListener("change", () => {
    if (who.value && !input.value.trim()) input.value = `${who.value} bot`;
  });
  li.append(input, who);
  return li;
}

function players() {
  return [...$("entrants").querySelectorAll("li")]
    .map((li) => ({
      name: li.querySelector(".entrant-name").value.trim(),
      bot: li.querySelector(".entrant-who").value || null,
    }))
    .filter((p) => p.name);
}

async function create(event) {
  event.preventDefault();
  const format = $("t-format").value;
  const body = {
    name: $("t-name").value.trim(),
    format,
    rounds: format === "swiss" ? Number($("t-rounds").value) : null,
    preset: $("t-preset").value,
    match: $("t-match").value || null,
    players: players(),
    bot_pace: $("t-pace").value,
  };
  $("create-msg").textContent = "";
  try {
    const created = await postJSON("/api/tournaments", body);
    saveDirector(created.tournament_id, created.director_token);
    location.href = created.url;
  } catch (err) {
    $("create-msg").textContent = t("tournaments.create_failed", { reason: err.message });
  }
}

async function showList() {
  const { tournaments } = await getJSON("/api/tournaments");
  const list = $("list");
  list.replaceChildren();
  if (!tournaments.length) {
    const li = document.createElement("li");
    li.textContent = t("tournaments.none");
    list.append(li);
  }
  for (const row of tournaments) {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = row.url;
    a.textContent = row.name;
    const what = document.createElement("span");
    what.textContent = t(`tournament.status.${row.status}`, {
      round: row.current_round,
      total: row.rounds_total ?? "?",
    });
    li.append(a, " ", what);
    list.append(li);
  }
}

async function main() {
  await mountLanguageSwitch();
  const info = await getJSON("/api/presets");
  BOTS = info.bots;
  for (const preset of info.presets) {
    if (preset.ruleset.rotation && preset.ruleset.rotation !== "off") continue; // two seats only
    $("t-preset").append(option(preset.name, presetName(preset.name)));
  }
  for (const value of MATCHES) {
    $("t-match").append(option(value, value ? t(`option.match.value.${value}`) : t("tournaments.preset_match")));
  }
  for (let i = 0; i < 6; i += 1) $("entrants").append(entrantRow());
  $("add-player").addEventListener("click", () => $("entrants").append(entrantRow()));
  // The format's name in the select, what it means under it: a select holds a short word whole.
  const showFormat = () => {
    $("rounds-row").hidden = $("t-format").value !== "swiss";
    $("t-format-help").textContent = t(`tournaments.format.${$("t-format").value}.help`);
  };
  $("t-format").addEventListener("change", showFormat);
  showFormat();
  $("create").addEventListener("submit", create);
  await showList();
}

main().then(() => (window.tournamentsReady = true));
