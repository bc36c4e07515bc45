// A player's settings, kept in this browser: card motion (off by itself when the system asks for
// reduced motion) and a sound when it becomes your turn. `mountPrefs` adds the "Settings" menu.

import { t } from "./i18n.js";

const KEY = "crapette:prefs";
const DEFAULTS = { motion: true, sound: false };
const listeners = new Set();
const reduced = window.matchMedia?.("(prefers-reduced-motion: reduce)");

export function prefs() {
  try {
    return { ...DEFAULTS, ...JSON.parse(localStorage.getItem(KEY) ?? "{}") };
  } catch {
    return { ...DEFAULTS };
  }
}

export function setPref(name, value) {
  localStorage.setItem(KEY, JSON.stringify({ ...prefs(), [name]: value }));
  applyMotion();
  for (const listener of listeners) listener(prefs());
}

/** Called with the settings whenever they (or the system's motion preference) change. */
export function onPrefs(listener) {
  listeners.add(listener);
  listener(prefs());
}

export function systemReducesMotion() {
  return Boolean(reduced?.matches);
}

/** Whether cards may fly: the setting is on and the system does not ask for reduced motion. */
export function motionAllowed() {
  return prefs().motion && !systemReducesMotion();
}

function applyMotion() {
  document.documentElement.classList.toggle("no-motion", !motionAllowed());
}

reduced?.addEventListener?.("change", () => {
  applyMotion();
  for (const listener of listeners) listener(prefs());
});
applyMotion();

function checkbox(id, text, checked, onChange) {
  const label = document.createElement("label");
  const input = document.createElement("input");
  input.type = "checkbox";
  input.id = id;
  input.checked = checked;
  input.addEventListener("change", () => onChange(input.checked));
  label.append(input, ` ${text}`);
  return label;
}

/** The "Settings" menu (a disclosure) at the end of `container`. */
export function mountPrefs(container, { sound = true } = {}) {
  const details = document.createElement("details");
  details.className = "prefs";
  details.dataset.testid = "prefs";
  const summary = document.createElement("summary");
  summary.textContent = t("prefs.settings");
  const body = document.createElement("div");
  body.className = "prefs-body";
  const current = prefs();
  body.append(
    checkbox("pref-motion", t("prefs.motion"), current.motion, (on) => setPref("motion", on)),
  );
  if (systemReducesMotion()) {
    const note = document.createElement("span");
    note.className = "hint";
    note.textContent = t("prefs.reduced");
    body.append(note);
  }
  if (sound) {
    body.append(
      checkbox("pref-sound", t("prefs.sound"), current.sound, (on) => {
        setPref("sound", on);
        if (on) unlockSound(); // a click is what lets a page play sound
      }),
    );
  }
  details.append(summary, body);
  container.append(details);
  return details;
}

let audio = null;
function unlockSound() {
  audio ??= new (window.AudioContext ?? window.webkitAudioContext)();
  audio.resume?.();
}

/** A short two-note chime (made here, no sound file); counted in `chimes` for the tests. */
export const chimes = { played: 0 };
export function chime() {
  if (!prefs().sound) return;
  try {
    unlockSound();
    const now = audio.currentTime;
    for (const [i, freq] of [660, 880].entries()) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, now + i * 0.12);
      gain.gain.exponentialRampToValueAtTime(0.15, now + i * 0.12 + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + i * 0.12 + 0.25);
      osc.connect(gain).connect(audio.destination);
      osc.start(now + i * 0.12);
      osc.stop(now + i * 0.12 + 0.3);
    }
    chimes.played += 1;
  } catch {
    // No audio device (or no Web Audio): the title still says it.
  }
}
