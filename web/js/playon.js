// Play on from here (docs/protocol.md § practice): from any position inside a game of a finished
// match, open a practice table against a bot at that very position, then go and play it. The
// new table says it is practice and counts in no statistics; the source match is not changed.

import { t } from "./i18n.js";
import { getJSON, postJSON, saveName, saveSeat, savedName } from "./net.js";
import { botWord } from "./words.js";

function el(tag, attrs = {}, text = "") {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text) node.textContent = text;
  return node;
}

export class PlayOn {
  constructor(page, box) {
    this.page = page;
    this.box = box;
    this.button = el("button", { type: "button", "data-testid": "play-on" }, t("playon.button"));
    this.button.title = t("playon.button_title");
    this.button.addEventListener("click", () => this.openForm());
    this.form = el("form", { class: "playon-form", "data-testid": "play-on-form" });
    this.form.hidden = true;
    this.box.append(this.button, this.form);
    this.box.hidden = false;
  }

  /** Is a game being played at frame `frame` (so there is a position to play on from)? */
  static playable(frame) {
    const view = frame?.view;
    return !!view && view.game_index !== null && view.game_index !== undefined && !view.over;
  }

  /** Called on every step: the button only where a game runs. */
  show(frame) {
    const can = PlayOn.playable(frame);
    this.button.disabled = !can;
    if (!can) this.form.hidden = true;
  }

  async openForm() {
    const frame = this.page.frames[this.page.pos];
    if (!PlayOn.playable(frame)) return;
    const { bots } = await getJSON("/api/presets");
    const players = this.page.players;
    const seat = el("select", { name: "seat", "data-testid": "play-on-seat" });
    players.forEach((name, i) => seat.append(new Option(t("playon.seat", { player: name }), String(i))));
    seat.value = String(frame.view.to_move ?? 0);
    const bot = el("select", { name: "bot", "data-testid": "play-on-bot" });
    for (const b of bots) bot.append(new Option(t("lobby.opponent_bot", { name: botWord(b.name) }), b.name));
    bot.value = bots.some((b) => b.name === "expert") ? "expert" : "sharp";
    const name = el("input", { name: "name", maxlength: 40, required: "", "data-testid": "play-on-name" });
    // The viewer's own name, as this browser remembers it: never a player's of the replay (the
    // seat to move may be a bot's, and the table would then name the viewer after it).
    name.value = savedName() || "";
    const go = el("button", { type: "submit", class: "primary", "data-testid": "play-on-start" }, t("playon.start"));
    const cancel = el("button", { type: "button" }, t("playon.cancel"));
    cancel.addEventListener("click", () => (this.form.hidden = true));
    // The position as a player counts (turn and game), never the stream's event number.
    const where = { turn: frame.view.turn_number ?? 0, game: (frame.view.game_index ?? 0) + 1 };
    const note = el("p", { class: "hint" }, t("playon.note", where));
    const error = el("p", { class: "error", role: "alert" });
    const label = (text, field) => {
      const l = el("label", {}, `${text} `);
      l.append(field);
      return l;
    };
    this.form.replaceChildren(
      note,
      label(t("lobby.your_name"), name),
      label(t("playon.as"), seat),
      label(t("playon.against"), bot),
      go,
      cancel,
      error,
    );
    this.form.onsubmit = async (e) => {
      e.preventDefault();
      go.disabled = true;
      try {
        const id = encodeURIComponent(this.page.matchId);
        const body = { version: frame.version, name: name.value.trim(), seat: Number(seat.value), bot: bot.value };
        const ticket = await postJSON(`/api/matches/${id}/practice`, body);
        saveName(body.name);
        saveSeat(ticket.match_id, ticket.seat, ticket.seat_token, body.name);
        location.assign(ticket.table_url);
      } catch (err) {
        error.textContent = t("playon.failed", { reason: err.message });
        go.disabled = false;
      }
    };
    this.form.hidden = false;
    name.focus();
  }
}

/** The table page's line saying it is a practice game, with a link to where it came from. */
export async function showPracticeNote(matchId, after) {
  let table;
  try {
    table = await getJSON(`/api/tables/${encodeURIComponent(matchId)}`);
  } catch {
    return; // the table page says what went wrong itself
  }
  if (!table.practice) return;
  const { match_id: from, version } = table.practice;
  const note = el("span", { class: "practice-note", "data-testid": "practice-note" }, `${t("playon.practice")} `);
  const link = el("a", { href: `/replay/${encodeURIComponent(from)}?v=${version}` }, t("playon.from"));
  note.append(link);
  note.title = t("playon.no_stats");
  after.after(note);
  document.body.classList.add("practice");
}
