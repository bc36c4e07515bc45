// Sharing from the replay page (docs/web.md § Sharing): the replay as one HTML file that opens
// anywhere, the game shown as an animated GIF, and a link to the position shown. A module of its
// own, so the replay page mounts it in one line; in the replay file itself (web/js/offline.js)
// it offers the record embedded in the file instead of the server's downloads.

import { lang, t } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const GIF_SPEEDS = [0.5, 1, 2, 4]; // server/readmodels/share/animate.py SPEEDS

function link(text, testid) {
  const a = document.createElement("a");
  a.textContent = text;
  a.dataset.testid = testid;
  return a;
}

/** The address of the position shown, as the replay page's own URL gives it (?game=N&v=K). */
export function positionUrl(base, matchId, frame) {
  const q = new URLSearchParams();
  const game = frame?.game_index ?? frame?.view?.game_index;
  if (game !== null && game !== undefined) q.set("game", String(game));
  if (frame) q.set("v", String(frame.version));
  return `${base}/replay/${encodeURIComponent(matchId)}?${q}`;
}

/** Copy `text`; a page served over plain HTTP on a LAN has no Clipboard API: select and copy. */
async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.append(area);
  area.select();
  const done = document.execCommand("copy");
  area.remove();
  if (!done) throw new Error("copy refused");
}

export class ShareControls {
  /** @param {import("./replay.js").Replay} replay */
  constructor(replay) {
    this.replay = replay;
    this.offline = window.crapetteOffline ?? null;
    this.box = document.createElement("span");
    this.box.className = "share";
    this.box.dataset.testid = "share";
    const bar = document.querySelector("header.bar");
    bar.insertBefore(this.box, $("dl-json"));
    if (this.offline) this.mountOffline();
    else this.mountServed();
    const base = this.offline ? this.offline.sourceUrl : location.origin;
    if (base) this.mountCopy(base.replace(/\/$/, ""));
  }

  frame() {
    return this.replay.frames[this.replay.pos];
  }

  mountServed() {
    const id = encodeURIComponent(this.replay.matchId);
    const html = link(t("share.html"), "share-html");
    html.href = `/api/matches/${id}/replay.html`;
    html.download = `crapette-${this.replay.matchId}.html`;
    html.title = t("share.html_title");
    const gif = link(t("share.gif"), "share-gif");
    gif.title = t("share.gif_title");
    const speed = document.createElement("select");
    speed.dataset.testid = "gif-speed";
    speed.setAttribute("aria-label", t("share.gif_speed"));
    speed.title = t("share.gif_speed");
    for (const s of GIF_SPEEDS) speed.append(new Option(`×${s}`, String(s), false, s === 1));
    speed.addEventListener("change", () => speed.blur()); // give the keys back to the viewer
    // The game shown when clicked: the link's address is set just before the browser follows it.
    const aim = () => {
      const g = this.frame()?.game_index ?? 0;
      // The GIF's words (names, piles, captions) in the page's language.
      gif.href = `/api/matches/${id}/game.gif?game=${g}&speed=${speed.value}&lang=${lang}`;
      gif.download = `crapette-${this.replay.matchId}-game${g + 1}.gif`;
    };
    gif.addEventListener("pointerdown", aim);
    gif.addEventListener("focus", aim);
    gif.addEventListener("click", (e) => {
      aim();
      if (!this.replay.analysis.over(this.frame()?.game_index)) {
        e.preventDefault(); // a game in play has no GIF: its hidden cards are not drawn
        this.say(t("share.gif_running"));
      }
    });
    aim();
    this.box.append(html, gif, speed);
  }

  /** In the replay file: the JSON record is the one embedded here; the text form is not. */
  mountOffline() {
    const json = JSON.stringify(JSON.parse(this.offline.record()), null, 1);
    $("dl-json").href = URL.createObjectURL(new Blob([json], { type: "application/json" }));
    $("dl-json").download = `crapette-${this.offline.matchId}.json`;
    $("dl-text").hidden = true;
  }

  mountCopy(base) {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = t("share.copy_link");
    button.title = t("share.copy_link_title");
    button.dataset.testid = "copy-link";
    button.addEventListener("click", async () => {
      const matchId = this.offline?.matchId ?? this.replay.matchId;
      const url = positionUrl(base, matchId, this.frame());
      this.lastCopied = url;
      try {
        await copyText(url);
        this.say(t("share.copied"));
      } catch {
        this.say(t("share.copy_failed", { url }));
      }
      button.blur(); // give the keys back to the viewer
    });
    this.box.append(button);
  }

  /** A word on what a control did, beside the controls (the caption follows the replay). */
  say(text) {
    if (!this.note) {
      this.note = document.createElement("span");
      this.note.className = "share-note";
      this.note.dataset.testid = "share-note";
      this.note.setAttribute("aria-live", "polite");
      this.box.append(this.note);
    }
    this.note.textContent = text;
    clearTimeout(this.noteTimer);
    this.noteTimer = setTimeout(() => (this.note.textContent = ""), 6000);
  }
}

export function mountShare(replay) {
  return new ShareControls(replay);
}
