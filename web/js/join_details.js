// What a guest reads before sitting down at an open table (or joining a rotation table's queue):
// who hosts it, the rules preset, the options that differ from it, who plays and who waits, the
// match target and the time per move.

import { t } from "./i18n.js";
import { getJSON } from "./net.js";
import { changedOptions, loadCatalogue, optionNamed, valueLabel } from "./ruleset_words.js";
import { presetName } from "./words.js";

function row(dl, term, text, testid) {
  const dt = document.createElement("dt");
  dt.textContent = term;
  const dd = document.createElement("dd");
  dd.textContent = text;
  dd.dataset.testid = testid;
  dl.append(dt, dd);
}

/** Fill the description list `dl` from a table object (`GET /api/tables/<id>`). */
export async function showJoinDetails(dl, table) {
  const { presets, options } = await loadCatalogue(getJSON);
  const preset = presets.find((p) => p.name === table.preset);
  const ruleset = table.ruleset ?? {};
  dl.innerHTML = "";
  const host = table.seats.find((s) => s.name)?.name ?? t("join.nobody");
  row(dl, t("join.host"), host, "join-host");
  row(dl, t("join.rules"), `${presetName(table.preset)}${preset ? ` — ${preset.description}` : ""}`, "join-preset");
  // The target and the time limit have rows of their own, changed or not. The rotation mode has
  // one too, but a mode other than the preset's is also a change (italian-four is winner_out).
  const own = new Set(["match", "move_time_limit_s"]);
  const changed = changedOptions(ruleset, preset?.ruleset, options).filter(
    (c) => !own.has(c.option.name),
  );
  const changes = changed.map((c) => `${c.option.label.toLowerCase()}${t("punct.colon")}${c.label}`).join("; ");
  row(dl, t("join.changed"), changes || t("join.nothing_changed", { preset: presetName(table.preset) }), "join-changed");
  const match = optionNamed(options, "match");
  const limit = optionNamed(options, "move_time_limit_s");
  const rotation = table.rotation;
  if (rotation) {
    // A rotation table (docs/spec/rules.md §10): who plays now, who waits, how seats change.
    row(dl, t("join.rotation"), valueLabel(optionNamed(options, "rotation"), rotation.mode), "join-rotation");
    const seated = (rotation.seated ?? []).filter(Boolean).join(", ") || t("join.nobody");
    const queue = rotation.queue?.length
      ? t("join.queue_names", { count: rotation.queue.length, names: rotation.queue.join(", ") })
      : t("join.queue_empty");
    row(dl, t("join.people"), t("join.people_line", { seated, queue }), "join-people");
  }
  row(dl, t("join.target"), valueLabel(match, ruleset.match), "join-target");
  row(dl, t("join.time"), valueLabel(limit, ruleset.move_time_limit_s ?? null), "join-limit");
}
