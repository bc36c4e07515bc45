// Sharing from the replay page (docs/web.md § Sharing): the replay as one HTML file that opens
// anywhere, and a link to the position shown. A module of its
// own, so the replay page mounts it in one line; in the replay file itself (web/js/offline.js)
// it offers the record embedded in the file instead of the server's downloads.

import { t } from "./i18n.js";

const $ = (id) => document.getElementById(id);

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
    this.box.append(html);
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

  say(text) {
    $("caption").textContent = text;
  }
}

export function mountShare(replay) {
  return new ShareControls(replay);
}
