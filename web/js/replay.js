// The replay viewer: every event of a match with the spectator's board after it. The server sends
// keyframes and view changes (docs/protocol.md § replay); they are decoded once on load into a
// whole view per frame, so jumping anywhere is one redraw. A live match then follows over
// Socket.IO as a spectator: each new event comes once, as it happens. Keys as on lichess; the URL
// always links to the position shown (?game=N&v=K, K the stream version).

import {
  Arrow,
  ReplayAnalysis,
  VIEWS,
  faultWords,
  knowledgeView,
  missedWords,
  optionWords,
} from "./analysis.js";
import { Board } from "./board.js";
import { BoardAccess } from "./board_access.js";
import { describeEvent, eventMark, eventNotation, eventPiles } from "./events.js";
import { mountLanguageSwitch, t } from "./i18n.js";
import { Judgements } from "./judgements.js";
import { Learn } from "./learn.js";
import { PlayOn } from "./playon.js";
import { emitAck, getJSON, openSocket } from "./net.js";
import { mountPrefs } from "./prefs.js";
import { SeatPanel } from "./seat_panel.js";
import { mountShare } from "./share.js";
import { fingerprint, ruleWords, shownName } from "./words.js";

const $ = (id) => document.getElementById(id);
const MARKED = new Set(["fault", "call", "voided"]);
const REAL_TIME_CAP_MS = 20000; // a long think is shown as at most 20 s of waiting
const SPEEDS = ["0.5", "1", "2", "5", "15", "real"];
const GAME_ENDS = new Set(["GameWon", "GameStalemated", "GameResigned"]);
// The keys of a spectator's view a frame keeps (server/readmodels/updates.py REPLAY_VIEW_KEYS).
const VIEW_KEYS = [
  "piles", "to_move", "turn_number", "totals", "game_scores", "over", "result", "last_action",
  "call_window", "clock", "commitment", "seed", "game_index",
];

/** Give every frame its whole view: a keyframe has it, any other frame has the changes since the
 *  frame before (`delta`; under `piles` only the piles that changed, null for one gone). Views
 *  share the piles that did not change, so this is cheap in time and memory. */
export function decodeFrames(frames) {
  let view = null;
  for (const frame of frames) {
    if ("delta" in frame) {
      const { piles, ...rest } = frame.delta;
      view = { ...view, ...rest };
      if (piles) {
        view.piles = { ...view.piles };
        for (const [name, cards] of Object.entries(piles)) {
          if (cards === null) delete view.piles[name];
          else view.piles[name] = cards;
        }
      }
      delete frame.delta;
      frame.view = view;
    } else {
      view = frame.view;
    }
  }
  return frames;
}

/** A live spectator `update` (docs/protocol.md) as a replay frame. */
function frameOfUpdate(msg) {
  const view = msg.view ? Object.fromEntries(VIEW_KEYS.map((k) => [k, msg.view[k] ?? null])) : null;
  return {
    version: msg.version,
    game_index: view?.game_index ?? null,
    at_ms: msg.at_ms ?? msg.event?.at_ms ?? null,
    event: msg.event,
    view,
  };
}

export class Replay {
  constructor(matchId) {
    mountLanguageSwitch();
    $("legend-call").textContent = t("replay.legend_call", { call: t("call.word") });
    this.matchId = matchId;
    this.frames = [];
    this.pos = -1;
    this.playing = null;
    this.board = new Board($("board"), { bottom: 0 });
    this.access = new BoardAccess(this.board, () => ({ seat: null, names: this.players }));
    mountPrefs(document.querySelector("header.bar"), { sound: false });
    this.seats = new SeatPanel(this.board);
    this.rows = [];
    this.urlTimer = null;
    this.viewMode = "all"; // the knowledge view of finished games (analysis.js VIEWS)
    this.options = [new Map(), new Map()]; // seat → version → what it could do (fetched once)
    this.compulsory = [new Map(), new Map()]; // seat → version → the moves priority demanded
  }

  async load() {
    const data = await getJSON(`/api/matches/${encodeURIComponent(this.matchId)}/replay`);
    this.data = data;
    // The names as shown: a bot's ("random bot") in the page's language.
    this.players = (data.players ?? [t("player.n", { n: 1 }), t("player.n", { n: 2 })]).map(shownName);
    this.analysis = new ReplayAnalysis(data.analysis, this.players, (v) =>
      this.go(this.indexOfVersion(v)),
    );
    this.arrow = new Arrow($("board-wrap"), this.board);
    this.judgements = new Judgements(this);
    this.learn = new Learn(this, this.judgements);
    // The learning mode asks the server to judge a try: a replay file has none.
    if (!window.crapetteOffline) this.judgements.whenReady(() => this.learn.mount($("judge-side")));
    this.setupViews();
    document.body.classList.toggle("has-analysis", this.analysis.any);
    this.setFrames(decodeFrames(data.frames ?? []));
    const id = encodeURIComponent(this.matchId);
    $("title").textContent =
      t(data.live ? "replay.title_live" : "replay.title", { a: this.players[0], b: this.players[1] });
    $("title").title = $("title").textContent; // the whole of it, if the header cuts it
    $("dl-json").href = `/api/matches/${id}/record`;
    $("dl-json").setAttribute("download", `${this.matchId}.json`);
    $("dl-text").href = `/api/matches/${id}/record.txt`;
    $("dl-text").setAttribute("download", `${this.matchId}.txt`);
    this.bindKeys();
    this.share = mountShare(this);
    const q = new URLSearchParams(location.search);
    let start = this.frames.length - 1;
    if (q.has("v")) start = this.indexOfVersion(Number(q.get("v")));
    else if (q.has("game")) start = this.gameStart(Number(q.get("game")));
    this.go(start);
    if (data.live) this.followLive();
    else if (window.crapetteOffline?.hasAnalysis) this.judgements.start(); // embedded: no request
    else if (!window.crapetteOffline) {
      // An analysis and a practice table need the server: a replay opened from a file has none.
      this.judgements.start();
      this.playOn = new PlayOn(this, $("play-on"));
      this.playOn.show(this.frames[this.pos]);
    }
  }

  /** Draw the frame shown again (a view or an analysis changed what it shows). */
  redraw() {
    const k = this.pos;
    this.pos = -1;
    this.go(k);
  }

  setFrames(frames) {
    this.frames = [];
    this.marks = [];
    this.turnStarts = [];
    this.games = new Map(); // game index → first frame
    this.rows = [];
    $("moves").innerHTML = "";
    $("game").innerHTML = "";
    this.addFrames(frames);
  }

  /** Append frames (all of them on load, then each live event): index them, add their rows,
   *  redraw the timeline and the slider's range. */
  addFrames(frames) {
    const rows = [];
    for (const f of frames) {
      const k = this.frames.length;
      this.frames.push(f);
      const ev = f.event;
      const mark = eventMark(ev);
      if (MARKED.has(mark) || this.analysis?.missedAt.has(f.version)) this.marks.push(k);
      const prev = this.frames[k - 1]?.event;
      const turnStart = ev?.type === "GameStarted" || prev?.type === "TurnEnded";
      if (turnStart) this.turnStarts.push(k);
      const g = f.game_index ?? f.view?.game_index;
      if (g !== null && g !== undefined && !this.games.has(g)) {
        this.games.set(g, k);
        const o = document.createElement("option");
        o.value = String(g);
        o.textContent = t("replay.game", { n: g + 1 });
        $("game").append(o);
      }
      rows.push(this.moveRow(f, k, mark, turnStart));
    }
    this.rows.push(...rows);
    this.bindMoveList();
    $("moves").append(...rows);
    this.buildTimeline();
    $("slider").max = String(Math.max(0, this.frames.length - 1));
  }

  moveRow(f, k, mark, turnStart) {
    const row = document.createElement("span");
    row.className = "ev";
    row.dataset.k = String(k);
    if (mark) row.classList.add(`mark-${mark}`);
    if (turnStart) row.classList.add("turn-start");
    const n = document.createElement("span");
    n.className = "n";
    n.textContent = String(f.version);
    row.append(n);
    row.title = eventNotation(f.event);
    const missed = this.analysis?.missedAt.get(f.version);
    if (missed) {
      const note = document.createElement("span");
      note.className = "missed-note";
      note.textContent = `${missedWords(missed, this.players)} `;
      row.classList.add("mark-missed");
      row.append(note);
      row.title = `${faultWords(missed, this.players)} (${eventNotation(f.event)})`;
    }
    row.append(describeEvent(f.event, this.players));
    return row;
  }

  bindMoveList() {
    const list = $("moves");
    list.onscroll = () => (this.listScroll = list.scrollTop);
    list.onclick = (e) => {
      const row = e.target.closest(".ev");
      if (row) this.go(Number(row.dataset.k));
    };
  }

  buildTimeline() {
    const line = $("timeline");
    line.innerHTML = "";
    const n = Math.max(1, this.frames.length - 1);
    this.frames.forEach((f, k) => {
      const missed = this.analysis?.missedAt.get(f.version);
      const mark = missed ? "missed" : eventMark(f.event);
      if (!mark) return;
      const tick = document.createElement("span");
      tick.className = `tick ${mark}`;
      tick.style.left = `calc(${(100 * k) / n}% - 1px)`;
      tick.title = missed
        ? faultWords(missed, this.players)
        : describeEvent(f.event, this.players);
      tick.dataset.k = String(k);
      line.append(tick);
    });
    line.onclick = (e) => {
      const tick = e.target.closest(".tick");
      if (tick) this.go(Number(tick.dataset.k));
    };
  }

  indexOfVersion(version) {
    const k = this.frames.findIndex((f) => f.version >= version);
    return k < 0 ? this.frames.length - 1 : k;
  }

  gameStart(game) {
    return this.games.get(game) ?? 0;
  }

  /** Show the position after frame k: the whole point of the page, kept cheap (one redraw). */
  go(k) {
    if (!this.frames.length) return;
    k = Math.max(0, Math.min(this.frames.length - 1, k));
    const frame = this.frames[k];
    const view = frame.view;
    const g = frame.game_index ?? view?.game_index;
    // Knowledge views exist once a game is over; a running game shows the public view only.
    const over = this.analysis.over(g);
    const mode = over ? this.viewMode : "all";
    this.board.setBottom(mode === "seat1" ? 1 : 0);
    this.board.render(knowledgeView(view, mode) ?? { piles: {} });
    const piles = eventPiles(frame.event);
    this.board.mark("last-from", piles.from ? [piles.from] : []);
    this.board.mark("last-to", piles.to ? [piles.to] : []);
    this.board.mark("fault", frame.event?.fault && piles.to ? [piles.to] : []);
    if ($("views").hidden === over) $("views").hidden = !over;
    this.arrow.show(over ? this.analysis.faultAt.get(frame.version) : null, this.players);
    if (over) this.judgements.show(g, frame, view);
    this.playOn?.show(frame);
    this.showOptions(over && mode.startsWith("seat") ? Number(mode[4]) : null, frame.version, view);
    this.analysis.show(g, frame.version, this.frames.at(-1).version, $("charts"), $("summary"));
    this.rows[this.pos]?.classList.remove("current");
    const row = this.rows[k];
    row.classList.add("current");
    this.scrollList(k);
    this.pos = k;
    $("slider").value = String(k);
    $("pos").textContent = `${k + 1} / ${this.frames.length}`;
    $("caption").textContent = this.caption(frame);
    if (view) {
      this.seats.draw({ ...view, clock: null }, this.players, null, null);
      $("commitment").textContent = view.seed
        ? t("table.seed", { seed: fingerprint(view.seed) })
        : t("table.commitment", { commitment: fingerprint(view.commitment) });
      $("commitment").title = view.seed ?? view.commitment ?? "";
    }
    if (g !== null && g !== undefined) $("game").value = String(g);
    this.scheduleUrl(frame, g);
  }

  /** Keep the current row visible. A row wraps when its event is long (issue 31), so its place
   * is read from the row itself: one layout read per step, of a list whose layout is contained. */
  scrollList(k) {
    const list = $("moves");
    if (this.listHeight === undefined) {
      this.listHeight = list.clientHeight;
      window.addEventListener("resize", () => (this.listHeight = undefined), { once: true });
    }
    const row = this.rows[k];
    const top = row.offsetTop;
    const height = row.offsetHeight;
    const shown = this.listScroll ?? list.scrollTop;
    let next = shown;
    if (top < shown) next = top;
    else if (top + height > shown + this.listHeight) next = top + height - this.listHeight;
    if (next !== shown || this.listScroll === undefined) list.scrollTop = next;
    this.listScroll = next;
  }

  caption(frame) {
    const view = frame.view;
    const fault = this.analysis.faultAt.get(frame.version);
    const said = describeEvent(frame.event, this.players);
    const judged = this.judgements?.caption(frame);
    let text = fault ? `${said} · ${faultWords(fault, this.players)}` : said;
    if (judged) text = `${text} · ${judged}`;
    if (!view || view.game_index === null || view.game_index === undefined) return text;
    const g = view.game_index + 1;
    // A score ("83–0") never breaks at its dash: word joiners hold it together (issue 39).
    return t("replay.caption", { text, n: g, turn: view.turn_number, totals: (view.totals ?? []).join("\u2060–\u2060") });
  }

  /** Keep the address bar on the position shown, without flooding the history API. */
  scheduleUrl(frame, game) {
    this.pendingUrl = { v: frame.version, game };
    if (this.urlTimer) return;
    this.urlTimer = setTimeout(() => {
      this.urlTimer = null;
      const q = new URLSearchParams();
      if (this.pendingUrl.game !== null && this.pendingUrl.game !== undefined) {
        q.set("game", String(this.pendingUrl.game));
      }
      q.set("v", String(this.pendingUrl.v));
      if (this.judgements?.depth) q.set("depth", this.judgements.depth); // the analysis asked for
      history.replaceState(null, "", `${location.pathname}?${q}`);
    }, 250);
  }

  step(d) {
    this.go(this.pos + d);
  }

  /** The knowledge view switch: every card, as each seat saw it, as a spectator saw it. */
  setupViews() {
    const names = { seat0: this.players[0], seat1: this.players[1] };
    for (const button of $("views").querySelectorAll("button")) {
      const mode = button.dataset.view;
      if (names[mode] !== undefined) {
        button.textContent = t("analysis.view_seat", { player: names[mode] });
        button.title = t("analysis.view_seat_title", { player: names[mode] });
      }
      button.addEventListener("click", () => this.setView(mode));
    }
    this.markView();
  }

  setView(mode) {
    this.viewMode = mode;
    this.markView();
    if (mode.startsWith("seat")) this.fetchOptions(Number(mode[4]));
    const k = this.pos;
    this.pos = -1;
    this.go(k);
  }

  markView() {
    for (const button of $("views").querySelectorAll("button")) {
      button.setAttribute("aria-checked", String(button.dataset.view === this.viewMode));
    }
  }

  async fetchOptions(seat) {
    if (this.options[seat].size || this.optionsAsked?.[seat]) return;
    this.optionsAsked = { ...this.optionsAsked, [seat]: true };
    const id = encodeURIComponent(this.matchId);
    const data = await getJSON(`/api/matches/${id}/options?seat=${seat}`);
    this.options[seat] = new Map(data.options);
    this.compulsory[seat] = new Map(data.compulsory ?? []);
    if (this.viewMode === `seat${seat}`) {
      const k = this.pos;
      this.pos = -1;
      this.go(k);
    }
  }

  /** In a seat's view: what that seat could do here, its piles lit, each option in words. */
  showOptions(seat, version, view) {
    const box = $("options");
    const options = seat === null ? undefined : this.options[seat].get(version);
    if (!options) {
      if (!box.hidden) {
        box.hidden = true;
        this.board.mark("could", []);
      }
      return;
    }
    // Where priority demanded a move (docs/spec/rules.md §6), that move is what the seat could
    // do: only it is listed and lit (issue 31: every legal move was, and all eight houses).
    const must = new Set(this.compulsory[seat].get(version) ?? []);
    const shown = must.size ? options.filter(([notation]) => must.has(notation)) : options;
    // An Ace that fits several empty foundations is one option in words.
    const seen = new Set();
    const said = shown
      .map((o) => optionWords(o, view, this.players))
      .filter((o) => !seen.has(o.words) && seen.add(o.words));
    this.board.mark("could", said.filter((o) => o.from && !o.rule).flatMap((o) => [o.from, o.to]));
    const intro = must.size ? "analysis.must" : "analysis.could";
    box.replaceChildren(`${t(intro, { player: this.players[seat] })} `);
    box.dataset.compulsory = String(must.size > 0);
    said.forEach((o, i) => {
      const item = document.createElement("span");
      item.className = o.rule ? "option fault" : "option";
      item.textContent = o.rule
        ? t("analysis.option_fault", { option: o.words, rule: ruleWords(o.rule, { viewer: null, players: this.players }, { offender: seat, actor: seat }) })
        : o.words;
      box.append(i ? " · " : "", item);
    });
    box.hidden = false;
  }

  turn(d) {
    const starts = this.turnStarts;
    if (d > 0) {
      const next = starts.find((k) => k > this.pos);
      this.go(next ?? this.frames.length - 1);
    } else {
      const prev = [...starts].reverse().find((k) => k < this.pos);
      this.go(prev ?? 0);
    }
  }

  /** `]` / `[`: the next / previous fault, call or voided action. Past the last one `]` wraps to
   * the first (and `[` before the first to the last): a finished replay opens at its end, where
   * `]` did nothing until Home (issue 31). */
  jumpMark(d) {
    const marks = this.marks;
    let k = d > 0 ? marks.find((m) => m > this.pos) : [...marks].reverse().find((m) => m < this.pos);
    if (k === undefined) k = d > 0 ? marks[0] : marks.at(-1);
    if (k !== undefined && k !== this.pos) this.go(k);
  }

  jumpGame(d) {
    const starts = [...this.games.values()].sort((a, b) => a - b);
    const k =
      d > 0
        ? starts.find((s) => s > this.pos)
        : [...starts].reverse().find((s) => s < this.pos);
    if (k !== undefined) this.go(k);
    else if (d < 0) this.go(0);
  }

  /** Delay before the next autoplay step. */
  delayMs() {
    const speed = $("speed").value;
    if (speed !== "real") return 1000 / Number(speed);
    const now = this.frames[this.pos];
    const next = this.frames[this.pos + 1];
    if (!now?.at_ms || !next?.at_ms) return 500;
    return Math.max(0, Math.min(REAL_TIME_CAP_MS, next.at_ms - now.at_ms));
  }

  togglePlay() {
    if (this.playing) {
      clearTimeout(this.playing);
      this.playing = null;
      $("b-play").textContent = t("replay.play");
      return;
    }
    if (this.pos >= this.frames.length - 1) this.go(0);
    $("b-play").textContent = t("replay.pause");
    const tick = () => {
      if (this.pos >= this.frames.length - 1) {
        this.playing = null;
        $("b-play").textContent = t("replay.play");
        return;
      }
      this.step(1);
      this.playing = setTimeout(tick, this.delayMs());
    };
    this.playing = setTimeout(tick, this.delayMs());
  }

  togglePerTurn() {
    this.analysis.togglePerTurn();
    const k = this.pos;
    this.pos = -1;
    this.go(k);
  }

  changeSpeed(d) {
    const select = $("speed");
    const i = SPEEDS.indexOf(select.value);
    select.value = SPEEDS[Math.max(0, Math.min(SPEEDS.length - 1, i + d))];
  }

  bindKeys() {
    $("slider").addEventListener("input", (e) => this.go(Number(e.target.value)));
    $("game").addEventListener("change", (e) => {
      this.go(this.gameStart(Number(e.target.value)));
      e.target.blur(); // give the keys back to the viewer
    });
    $("speed").addEventListener("change", (e) => e.target.blur());
    const buttons = {
      "b-start": () => this.go(0),
      "b-prev-turn": () => this.turn(-1),
      "b-prev": () => this.step(-1),
      "b-play": () => this.togglePlay(),
      "b-next": () => this.step(1),
      "b-next-turn": () => this.turn(1),
      "b-end": () => this.go(this.frames.length - 1),
    };
    for (const [id, fn] of Object.entries(buttons)) $(id).addEventListener("click", fn);
    window.addEventListener("keydown", (e) => {
      if (e.target.closest?.("select, input:not([type=range]), textarea")) return;
      const keys = {
        ArrowLeft: () => (e.shiftKey ? this.turn(-1) : this.step(-1)),
        ArrowRight: () => (e.shiftKey ? this.turn(1) : this.step(1)),
        ArrowUp: () => this.jumpGame(-1),
        ArrowDown: () => this.jumpGame(1),
        Home: () => this.go(0),
        End: () => this.go(this.frames.length - 1),
        " ": () => this.togglePlay(),
        "[": () => this.jumpMark(-1),
        "]": () => this.jumpMark(1),
        v: () => this.setView(VIEWS[(VIEWS.indexOf(this.viewMode) + 1) % VIEWS.length]),
        V: () => this.setView(VIEWS[(VIEWS.indexOf(this.viewMode) + 1) % VIEWS.length]),
        t: () => this.togglePerTurn(),
        T: () => this.togglePerTurn(),
        Escape: () => this.learn.active && this.learn.stop(),
        m: () => this.judgements.jumpMistake(1),
        M: () => this.judgements.jumpMistake(-1),
        "+": () => this.changeSpeed(1),
        "=": () => this.changeSpeed(1),
        "-": () => this.changeSpeed(-1),
      };
      const fn = keys[e.key];
      if (!fn) return;
      e.preventDefault();
      fn();
    });
  }

  /** A live match: watch it over Socket.IO as a spectator, asking for the events after the last
   *  frame (again after a reconnect); each new event becomes a frame. The view follows the end if
   *  the viewer is there. Once the match is won the page reloads: the finished replay shows every
   *  card, which a spectator never sees live. */
  followLive() {
    this.socket = openSocket(() => {
      $("caption").textContent = t("conn.old_page");
    });
    this.socket.on("connect", () => this.joinLive());
    // A batch's updates in order; stop at one that asks again or leaves the page.
    this.socket.on("updates", (msg) => msg.updates.every((update) => this.onLiveUpdate(update)));
    // Too far behind for a backlog (docs/protocol.md § join_table): load the replay again, here.
    this.socket.on("snapshot", (msg) => {
      if (msg.match_id !== this.matchId) return;
      this.socket.disconnect();
      location.replace(location.href);
    });
  }

  lastVersion() {
    return this.frames.at(-1)?.version ?? 0;
  }

  async joinLive() {
    const join = { match_id: this.matchId, seat_token: null, last_version: this.lastVersion() };
    try {
      await emitAck(this.socket, "join_table", join);
    } catch {
      // no answer in time: the next reconnect asks again
    }
  }

  /** One update of a batch; false when the rest of the batch is to be dropped. */
  onLiveUpdate(msg) {
    if (msg.match_id !== this.matchId) return false;
    if (msg.version <= this.lastVersion()) return true; // already have it
    if (msg.version > this.lastVersion() + 1) {
      this.joinLive(); // one went missing: ask for everything after the last frame
      return false;
    }
    const atEnd = this.pos === this.frames.length - 1;
    this.addFrames([frameOfUpdate(msg)]);
    if (atEnd && !this.playing) this.go(this.frames.length - 1);
    else $("pos").textContent = `${this.pos + 1} / ${this.frames.length}`;
    if (GAME_ENDS.has(msg.event?.type)) {
      // A game over: its cards, faults and analysis are public now. Load them (at this spot).
      this.socket.disconnect();
      location.replace(atEnd ? location.pathname : location.href);
      return false;
    }
    if (msg.event?.type === "MatchWon") {
      this.socket.disconnect();
      location.reload();
      return false;
    }
    return true;
  }
}

const matchId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() ?? "");
const replay = new Replay(matchId);
window.replay = replay;
replay
  .load()
  .then(() => (window.replayReady = true))
  .catch((err) => {
    $("caption").textContent = t("replay.load_failed", { reason: err.message });
  });
