// A table's rules in words, from what `GET /api/presets` says: each preset's values and each
// option's label, explanation and value labels. Nothing about the rules is written here.

/** `GET /api/presets`, fetched once per page. */
let catalogue = null;
export function loadCatalogue(getJSON) {
  catalogue ??= getJSON("/api/presets");
  return catalogue;
}

/** The label of one value of an option ("first to 300 points", "no limit"), else the value. */
export function valueLabel(option, value) {
  const known = option?.values?.find((v) => v.value === value);
  if (known) return known.label;
  if (option?.kind === "seconds") return value === null ? "no limit" : `${value} seconds`;
  if (option?.kind === "match") {
    const m = /^(points|wins):(\d+)$/.exec(String(value));
    if (m) return m[1] === "points" ? `first to ${m[2]} points` : `first to ${m[2]} games won`;
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
