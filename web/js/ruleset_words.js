// A table's rules in words: which options and values exist and each preset's values come from
// `GET /api/presets`; their words come from the catalogues (web/i18n, keyed by the option's name
// and the value's JSON text), the server's English label standing in for one they lack.

import { has, t } from "./i18n.js";

/** `GET /api/presets`, fetched once per page, its words in the page's language. */
let catalogue = null;
export function loadCatalogue(getJSON) {
  catalogue ??= getJSON("/api/presets").then(inLanguage);
  return catalogue;
}

function say(key, english) {
  return has(key) ? t(key) : english;
}

function valueKey(value) {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function inLanguage({ presets, options, bots, ...rest }) {
  return {
    ...rest,
    presets: presets.map((p) => ({
      ...p,
      description: say(`preset.${p.name}.description`, p.description),
    })),
    bots: bots.map((b) => ({ ...b, description: say(`bot.${b.name}.description`, b.description) })),
    options: options.map((o) => ({
      ...o,
      label: say(`option.${o.name}.label`, o.label),
      help: say(`option.${o.name}.help`, o.help),
      values: o.values.map((v) => ({
        ...v,
        label: say(`option.${o.name}.value.${valueKey(v.value)}`, v.label),
      })),
    })),
  };
}

/** The label of one value of an option ("first to 300 points", "no limit"), else the value. */
export function valueLabel(option, value) {
  const known = option?.values?.find((v) => v.value === value);
  if (known) return known.label;
  if (option?.kind === "seconds") {
    return value === null
      ? t("option.move_time_limit_s.value.null")
      : t("option.move_time_limit_s.seconds", { count: value });
  }
  if (option?.kind === "match") {
    const m = /^(points|wins):(\d+)$/.exec(String(value));
    if (m) return t(`option.match.${m[1]}`, { n: m[2] });
  }
  return String(value);
}

/** The options whose value differs from the preset's: [{option, value, label}]. */
export function changedOptions(ruleset, presetRuleset, options) {
  return options
    .filter((o) => o.name in (ruleset ?? {}) && ruleset[o.name] !== presetRuleset?.[o.name])
    .map((o) => ({ option: o, value: ruleset[o.name], label: valueLabel(o, ruleset[o.name]) }));
}

export function optionNamed(options, name) {
  return options.find((o) => o.name === name);
}
