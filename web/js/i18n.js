// The client's words in the player's language: one catalogue per language (`web/i18n/<lang>.json`,
// data; docs/web.md says how to add a language), `t(key, params)` to say a message, a switch
// remembered in this browser.
//
// A message is a string with named placeholders ("{name} calls Crapette!"), or, where a number
// changes the words, an object of plural forms keyed by Intl.PluralRules categories
// ({"one": "{count} card", "other": "{count} cards"}); `t` picks the form from `params.count`.
// A key missing from a catalogue falls back to English, then to the key itself.

export const LANGUAGES = ["en", "fr", "da", "it", "fi"];
const DEFAULT = "en";
const STORE = "crapette:lang"; // the choice remembered in this browser
const COOKIE = "crapette_lang"; // the same choice, for the pages the server renders (/rules)

function supported(value) {
  const base = String(value ?? "")
    .trim()
    .toLowerCase()
    .replace("_", "-")
    .split("-")[0];
  return LANGUAGES.includes(base) ? base : null;
}

function remember(lang) {
  try {
    localStorage.setItem(STORE, lang);
  } catch {
    // Storage refused (private mode): the choice lasts for this page only.
  }
  document.cookie = `${COOKIE}=${lang}; path=/; max-age=31536000; samesite=lax`;
}

/** The page's language: `?lang=` (then remembered), else the choice remembered in this browser
 * (localStorage, else the cookie the rules page sets), else the first of the browser's languages
 * we speak, else English. */
export function chosenLanguage() {
  const asked = supported(new URLSearchParams(location.search).get("lang"));
  if (asked) {
    remember(asked);
    return asked;
  }
  let stored = null;
  try {
    stored = supported(localStorage.getItem(STORE));
  } catch {
    stored = null;
  }
  if (stored) return stored;
  // A choice made on a page the server rendered (the rules page's links set only the cookie).
  const cookie = supported(/(?:^|;\s*)crapette_lang=([^;]*)/.exec(document.cookie)?.[1]);
  if (cookie) return cookie;
  for (const lang of navigator.languages ?? [navigator.language]) {
    const ours = supported(lang);
    if (ours) return ours;
  }
  return DEFAULT;
}

async function fetchCatalogue(lang) {
  const res = await fetch(`/static/i18n/${lang}.json`);
  if (!res.ok) throw new Error(`no catalogue for ${lang}: HTTP ${res.status}`);
  return res.json();
}

export let lang = chosenLanguage();
let messages = {};
let english = {};
try {
  [english, messages] = await Promise.all([
    fetchCatalogue(DEFAULT),
    lang === DEFAULT ? null : fetchCatalogue(lang),
  ]);
  messages ??= english;
} catch (err) {
  console.error(err);
  lang = DEFAULT;
  messages = english;
}
document.documentElement.lang = lang;
const plurals = new Intl.PluralRules(lang);

/** A number in the page's language, with `digits` decimals: 0.5 → "0.5" in English, "0,5" in
 * French. */
export function formatNumber(value, digits = 0) {
  return new Intl.NumberFormat(lang, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(value);
}

/** True when the catalogues have a message under `key` (for words the server may name, such as
 * an option's value: the client says the ones it knows and shows the others as sent). */
export function has(key) {
  return key in messages || key in english;
}

/** The message `key` in the page's language, its `{placeholders}` filled from `params`. */
export function t(key, params = {}) {
  let message = messages[key] ?? english[key];
  if (message === undefined) {
    console.warn(`i18n: no message ${key}`);
    return key;
  }
  if (typeof message === "object") {
    const count = Number(params.count ?? 0);
    message = message[plurals.select(count)] ?? message.other;
  }
  return message.replace(/\{(\w+)\}/g, (whole, name) =>
    name in params ? String(params[name]) : whole,
  );
}

/** Put the words into the page's static HTML: `data-i18n` (text), `data-i18n-title`,
 * `data-i18n-aria-label`, `data-i18n-placeholder` name a key each. */
export function translatePage(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const [data, attr] of [
    ["i18nTitle", "title"],
    ["i18nAriaLabel", "aria-label"],
    ["i18nPlaceholder", "placeholder"],
  ]) {
    const selector = `[data-${data.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}]`;
    for (const el of root.querySelectorAll(selector)) el.setAttribute(attr, t(el.dataset[data]));
  }
}

/** Switch to `next` and remember it in this browser; the page reloads in that language. */
export function setLanguage(next) {
  const chosen = supported(next);
  if (!chosen) return;
  remember(chosen);
  const url = new URL(location.href);
  url.searchParams.delete("lang"); // an explicit ?lang= would win over the new choice
  location.replace(url.href);
}

/** The language switch: each language named in its own words, the current one marked. A page
 * whose words are all in the catalogues puts it in its header (`mountLanguageSwitch`). */
export async function languageSwitch() {
  const nav = document.createElement("nav");
  nav.className = "languages";
  nav.dataset.testid = "languages";
  nav.setAttribute("aria-label", t("language.switch"));
  const names = await Promise.all(
    LANGUAGES.map((l) =>
      l === lang ? messages["language.name"] : fetchCatalogue(l).then((c) => c["language.name"]),
    ),
  );
  LANGUAGES.forEach((l, i) => {
    const a = document.createElement("a");
    a.href = `?lang=${l}`;
    a.lang = l;
    a.dataset.lang = l;
    a.textContent = names[i];
    if (l === lang) a.setAttribute("aria-current", "true");
    a.addEventListener("click", (e) => {
      e.preventDefault();
      setLanguage(l);
    });
    nav.append(a);
  });
  return nav;
}

/** Translate the page's static words and put the switch at the end of its header bar. */
export async function mountLanguageSwitch() {
  translatePage();
  const bar = document.querySelector("header.bar");
  if (bar && !bar.querySelector("nav.languages")) bar.append(await languageSwitch());
}
