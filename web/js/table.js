// The table page: one seat's (or a spectator's) live view of a match. Every move goes to the server
// as a command; the board is redrawn only from the views the server sends back, so the page never
// has to know the rules: `view.legal` says what may be done, `refused` says why not.
//
// What a person can follow: every event goes into the action log at once, in words; the board
// shows the views one at a time, each card's flight ending before the next begins (a burst that
// arrives at once is queued). A message lives until the next action (or a few seconds).

import { Board } from "./board.js";
import { BoardAccess } from "./board_access.js";
import { eventPiles } from "./events.js";
import { Controls } from "./table_input.js";
import { lanBase, renderInvite } from "./invite.js";
import { showJoinDetails } from "./join_details.js";
import {
  commandId,
  emitAck,
  forgetSeat,
  getJSON,
  loadSeat,
  openSocket,
  postJSON,
  saveName,
  saveSeat,
  savedName,
} from "./net.js";
import { RematchPanel } from "./rematch.js";
import { RotationPanel, standings } from "./rotation.js";
import { loadCatalogue } from "./ruleset_words.js";
import { SeatPanel } from "./seat_panel.js";
import { motionAllowed, mountPrefs, onPrefs } from "./prefs.js";
import { TurnNotice } from "./turn_notice.js";
import { mountLanguageSwitch, t } from "./i18n.js";
import {
  capital,
  eventWords,
  faultLineWords,
  fingerprint,
  playerWords,
  reasonWords,
  refusalWords,
  resultWords,
  shownName,
} from "./words.js";

const $ = (id) => document.getElementById(id);

// More queued views than this (a reconnect's backlog): the board jumps to the newest.
const MAX_BACKLOG = 12;
const PAUSE_MS = 80; // a breath between two animated actions
const FLIGHT_CAP_MS = 900; // never wait longer for a flight (a hidden tab may not run them)
// Events that are a player's (or the clock's) action: a message shown before one goes stale.
const ACTIONS = new Set([
  "CardMoved",
  "HandCardTurned",
  "CardDiscarded",
  "Passed",
  "WasteTurnedOver",
  "CrapetteCalled",
  "DrawOffered",
  "DrawAccepted",
  "TimeExpired",
  "GameStarted",
]);
const GAME_ENDS = new Set(["GameWon", "GameStalemated", "GameResigned"]);
// The faults an end panel lists before "Show all": the rest would push the log out of view.
const FAULTS_SHOWN = 4;

class TablePage {
  constructor(matchId) {
    mountLanguageSwitch(); // the page's words first: the title and panels below read them
    this.matchId = matchId;
    const saved = loadSeat(matchId);
    this.seat = saved?.seat ?? null;
    this.token = saved?.seat_token ?? null;
    // At a rotation table a person keeps one token for the session, seated or waiting
    // (docs/protocol.md, "Rotation tables"): his name says who he is, `waiting` where.
    this.me = saved?.name ?? null;
    this.waiting = false;
    this.view = null; // the newest view (what input acts on)
    this.version = null; // last stream version received; sent back on reconnect
    this.shown = null; // the stream version the board shows
    this.queue = []; // views waiting for the board: {view, ev, version}
    this.animating = false;
    this.table = null;
    this.everConnected = false;
    this.drops = 0; // the times the connection was lost
    this.logGame = null; // the game index the log is about
    this.board = new Board($("board"), { bottom: this.seat ?? 0, animate: true });
    this.seats = new SeatPanel(this.board);
    this.input = new Controls(this);
    this.access = new BoardAccess(
      this.board,
      () => {
        const shown = this.boardCtx(this.view);
        return { seat: shown.viewer, names: shown.players };
      },
      (pile) => this.input.onPileClick(pile),
    );
    $("replay-link").href = `/replay/${encodeURIComponent(matchId)}`;
    $("join-name").value = savedName();
    $("join-btn").addEventListener("click", () => this.join());
    $("claim-resign").addEventListener("click", () => this.claim("resign"));
    $("claim-bot").addEventListener("click", () => this.claim("bot"));
    $("next-game").addEventListener("click", () => this.nextGame());
    this.rematch = new RematchPanel(this, () => Date.now() - this.seats.skewMs);
    this.notice = new TurnNotice();
    this.rotation = new RotationPanel(
      () => this.leaveQueue(),
      (bot) => this.queueBot(bot),
    );
    this.bots = []; // the bots a table may seat (`/api/presets`), for "add a bot to the queue"
    this.session = null; // the people of a rotation table (null at any other)
    mountPrefs(document.querySelector("header.bar"));
    onPrefs(() => (this.board.animate = motionAllowed()));
    $("after-replay").href = `/replay/${encodeURIComponent(matchId)}`;
    window.crapette = this; // for tests and the curious: the page's state, read-only by convention
  }

  /** True when the board shows the newest view and no card is flying (for tests). */
  get idle() {
    return !this.animating && this.queue.length === 0 && this.shown === this.version;
  }

  /** What sentences need: the viewer, the names, the piles of the newest position. */
  ctx(piles) {
    const players = this.view?.players ?? this.players();
    return { viewer: this.seat, players, piles: piles ?? this.view?.piles ?? {} };
  }

  async start() {
    this.lanBase = lanBase(await getJSON("/api/server-info").catch(() => null));
    loadCatalogue(getJSON)
      .then(({ bots }) => {
        this.bots = bots;
        this.refreshPanels();
      })
      .catch(() => {}); // no catalogue: no "add a bot" choice, the rest of the page works
    try {
      this.onTable(await getJSON(`/api/tables/${encodeURIComponent(this.matchId)}`));
    } catch (err) {
      this.say(t("table.no_such_table", { reason: err.message }), "refused", "stay");
      return;
    }
    this.socket = openSocket(() => {
      $("conn").textContent = t("conn.old_page");
      $("conn").classList.add("down");
      this.say(capital(t("conn.old_page")), "refused", "stay");
    });
    this.socket.on("connect", () => this.onConnect(this.everConnected));
    this.socket.on("disconnect", () => this.onDisconnect());
    this.socket.on("snapshot", (msg) => this.onSnapshot(msg));
    this.socket.on("updates", (msg) => msg.updates.forEach((update) => this.onUpdate(update)));
    this.socket.on("table", (msg) => this.onTable(msg));
    this.socket.on("seat", (msg) => this.onSeat(msg));
    this.socket.on("refused", (msg) => this.onRefused(msg));
    this.socket.on("error", (msg) => this.say(capital(reasonWords(msg, this.ctx())), "refused"));
    setInterval(() => {
      this.seats.tick(this.view);
      this.showClaim();
      this.expireMessage();
    }, 250);
    setInterval(() => this.rematch.draw(), 1000); // an offer lapses with time
  }

  /** Join (or join again) over the socket. `again`: a real reconnect, which the page announces. */
  async onConnect(again = false) {
    this.everConnected = true;
    const conn = $("conn");
    conn.textContent = t("conn.joining");
    let ack;
    try {
      ack = await emitAck(this.socket, "join_table", {
        match_id: this.matchId,
        seat_token: this.token,
        last_version: this.version,
      });
    } catch {
      conn.textContent = t("conn.no_answer");
      conn.classList.add("down");
      return;
    }
    if (!ack?.ok) {
      if (ack?.code === "forbidden" && this.token) {
        // A stale token (another server, a purged table): watch instead.
        this.token = null;
        this.seat = null;
        this.board.setBottom(0);
        return this.onConnect(false);
      }
      this.say(ack ? capital(reasonWords(ack, this.ctx())) : t("table.could_not_join"), "refused", "stay");
      return;
    }
    this.seat = ack.seat ?? null;
    this.waiting = Boolean(ack.waiting);
    if (ack.name) this.me = ack.name;
    this.board.setBottom(this.seat ?? 0);
    conn.classList.remove("down");
    this.showConn();
    if (again) this.say(t("table.reconnected"), "info", 4000);
    else this.clearMessage("lost");
    this.refreshPanels();
  }

  showConn() {
    const conn = $("conn");
    if (this.waiting) conn.textContent = t("conn.waiting");
    // "playing", never "seat 1": a seat's number is no word of the game (issue 39).
    else conn.textContent = this.seat === null ? t("conn.watching") : t("conn.playing");
  }

  /**
   * A rotation table moved this person (docs/protocol.md, "The seat change"): from the queue to a
   * seat, or from his seat to the queue. The view of his new place comes with it; from now on the
   * updates are that place's, on this same connection: no reload, no new join.
   */
  onSeat(msg) {
    if (msg.match_id !== this.matchId) return;
    this.seat = msg.seat ?? null;
    this.waiting = Boolean(msg.waiting);
    if (msg.name) this.me = msg.name;
    saveSeat(this.matchId, this.seat, this.token, this.me ?? "");
    this.board.setBottom(this.seat ?? 0);
    this.showConn();
    if (msg.view) {
      this.version = msg.version;
      this.queue = [];
      this.view = msg.view;
      this.show({ view: msg.view, ev: null, version: msg.version }, false);
    }
    this.afterView();
  }

  onDisconnect() {
    this.drops += 1; // for tests: a "Reconnected" is only said after one of these
    const conn = $("conn");
    conn.textContent = t("conn.reconnecting");
    conn.classList.add("down");
    this.say(t("table.connection_lost"), "lost", "stay");
  }

  onSnapshot(msg) {
    if (msg.match_id !== this.matchId) return;
    this.version = msg.version;
    this.queue = [];
    this.view = msg.view ?? null;
    this.show({ view: msg.view, ev: null, version: msg.version }, false);
    this.afterView();
    this.fillLog(msg.view, msg.version);
    // A page that comes after the game's end (a reload, a spectator, an imported match) lists
    // its faults too, as the page that saw the end did.
    if (msg.view?.over) this.revealFaults(msg.view.game_index);
  }

  onUpdate(msg) {
    if (msg.match_id !== this.matchId) return;
    if (this.version !== null && msg.version <= this.version) return; // already seen
    this.version = msg.version;
    const ev = msg.event;
    this.seats.observeServerTime(ev?.at_ms);
    const before = this.view?.piles;
    if (msg.view) this.view = msg.view;
    if (ev?.type) this.onEvent(ev, before);
    this.enqueue({ view: msg.view, ev, version: msg.version });
    this.afterView();
  }

  /** The newest view arrived: input, panels and the end-of-game screen follow it at once. */
  afterView() {
    this.input.onView(this.view);
    this.refreshPanels();
  }

  // -- the board, one action at a time ---------------------------------------------------------

  enqueue(item) {
    this.queue.push(item);
    if (!this.animating) this.drain();
  }

  async drain() {
    this.animating = true;
    try {
      while (this.queue.length) {
        if (this.queue.length > MAX_BACKLOG) {
          // Too far behind (a reconnect, a hidden tab): show the newest position at once.
          const last = this.queue[this.queue.length - 1];
          this.queue = [];
          this.show(last, false);
          break;
        }
        const flights = this.show(this.queue.shift(), true);
        if (flights.length) {
          const ends = Promise.all(flights.map((f) => f.finished.catch(() => null)));
          await Promise.race([ends, sleep(FLIGHT_CAP_MS)]);
          await sleep(PAUSE_MS);
        }
      }
    } finally {
      this.animating = false;
      this.input.redrawMarks(); // the board shows the newest view: its playable cards
    }
  }

  /** Draw one view on the board with its last-move marks; returns the card flights started. */
  show({ view, ev, version }, animate) {
    this.shown = version;
    if (!view) return [];
    this.shownView = view; // the position on the board: the seat panels count its cards
    const motion = motionAllowed(); // the player's "reduce motion" setting
    this.board.animate = animate && motion;
    const flights = this.board.render(view);
    this.board.animate = motion;
    const last = ev ? eventPiles(ev) : lastActionPiles(view.last_action);
    // An event that moves no card (a turn ending, a call) leaves the last move marked.
    if (!ev || last.from || last.to) {
      this.board.mark("last-from", last.from ? [last.from] : []);
      this.board.mark("last-to", last.to ? [last.to] : []);
      this.board.mark("fault", ev?.fault && last.to ? [last.to] : []);
    }
    this.input.redrawMarks();
    if (this.view) this.drawSeatPanels(this.view);
    return flights;
  }

  // -- events: log, messages, banner ----------------------------------------------------------

  onEvent(ev, pilesBefore) {
    const ctx = this.ctx(pilesBefore);
    if (ACTIONS.has(ev.type)) this.clearMessage("refused", "why", "verdict", "info", "cursor", "hint");
    if (ev.type === "GameStarted" || this.logGame === null) this.startLog(ev);
    if (ev.type === "MatchWon") {
      this.abandonedBy = ev.abandoned_by ?? null;
      this.abandonClaimed = Boolean(ev.claimed);
    }
    this.log(ev, ctx);
    if (ev.type === "GameStarted") {
      $("end-faults").textContent = "";
      this.rotation.clear();
    }
    if (GAME_ENDS.has(ev.type)) {
      // The game is over: a call's verdict, a chosen move or a hint beside "Game over." is news
      // no more (the log keeps the verdict).
      this.clearMessage("verdict", "cursor", "hint", "why", "info"); // a stalemate offer, too
      this.revealFaults(this.view?.game_index);
    }
    if (ev.type === "CrapetteCalled") {
      const right = ev.verdict === "right";
      const text = eventWords(ev, ctx);
      this.showBanner(t(right ? "banner.right_call" : "banner.wrong_call", { call: t("call.word") }), text, 2600);
      this.say(text, "verdict");
    } else if (ev.type === "SeatsRotated") {
      const mode = this.view?.session?.mode ?? this.table?.rotation?.mode;
      this.lastChange = ev;
      this.rotation.announce(ev, mode, this.token ? this.me : null);
    } else if (ev.type === "TimeExpired") {
      this.say(eventWords(ev, ctx), "info");
    } else if (ev.type === "DrawOffered" && this.seat !== null && ev.seat !== this.seat) {
      // Only a seat can accept; a spectator is never asked to press anything.
      this.say(t("draw.press_o", { text: eventWords(ev, ctx) }), "info");
    } else if (ev.type === "DrawOffered" && this.seat !== null) {
      const other = playerWords(1 - this.seat, ctx);
      this.say(t("draw.you_offer", { who: other }), "info");
    }
  }

  startLog(ev) {
    this.logGame = ev?.game_index ?? this.view?.game_index ?? 0;
    $("log").innerHTML = "";
    this.lastCall = null;
  }

  /** One event into the log; a call's consequences join the call's line. */
  log(ev, ctx) {
    if (ev.type === "MatchStarted") return;
    const text = eventWords(ev, ctx);
    if (!text) return;
    const list = $("log");
    if ((ev.type === "ActionVoided" || ev.type === "CompulsoryMovePlayed") && this.lastCall) {
      this.lastCall.textContent += `; ${text}`;
    } else {
      const li = document.createElement("li");
      li.textContent = capital(text);
      const actor = ev.seat ?? ev.caller;
      if (actor !== undefined && actor === this.seat) li.classList.add("mine");
      if (ev.type === "CrapetteCalled") li.classList.add("call");
      if (ev.type === "TurnEnded") li.classList.add("turn");
      li.dataset.type = ev.type;
      list.append(li);
      if (ev.type === "CrapetteCalled") this.lastCall = li;
      else if (ev.type !== "TurnEnded") this.lastCall = null;
    }
    list.scrollTop = list.scrollHeight;
  }

  /** Joined mid-game (a reload, a spectator): the game's earlier events come from the replay. */
  async fillLog(view, version) {
    this.startLog({ game_index: view?.game_index ?? 0 });
    if (!view || view.game_index === null || view.game_index === undefined) return;
    let frames;
    try {
      frames = (await getJSON(`/api/matches/${encodeURIComponent(this.matchId)}/replay`)).frames;
    } catch {
      frames = null;
    }
    if (this.logGame !== view.game_index || $("log").childElementCount) return; // moved on
    if (!Array.isArray(frames)) {
      this.say(t("table.earlier_in_replay"), "info");
      return;
    }
    let piles = {};
    for (const f of frames) {
      if (f.version > version || !f.event) continue;
      if (f.event.type === "MatchWon") {
        this.abandonedBy = f.event.abandoned_by ?? null;
        this.abandonClaimed = Boolean(f.event.claimed);
        this.refreshPanels(); // the end panel says why the match ended
      }
      const game = f.game_index ?? f.view?.game_index;
      if (game === view.game_index) this.log(f.event, this.ctx(piles));
      if (f.view?.piles) piles = f.view.piles;
    }
  }

  /**
   * Once a game is over its faults are no secret: the end-of-game panel lists them, each in
   * words and whether it was called (from the replay's analysis of the finished games).
   */
  async revealFaults(game) {
    if (game === null || game === undefined || this.view?.ruleset?.enforcement !== "call") return;
    let replay;
    try {
      replay = await getJSON(`/api/matches/${encodeURIComponent(this.matchId)}/replay`);
    } catch {
      return;
    }
    const done = replay?.analysis?.games?.find((g) => g.game_index === game);
    if (!done || this.view?.game_index !== game) return;
    const events = new Map((replay.frames ?? []).map((f) => [f.version, f.event]));
    const ctx = this.ctx();
    const box = $("end-faults");
    box.innerHTML = "";
    const head = document.createElement("p");
    const missed = done.faults.filter((f) => f.missed).length;
    const state = missed ? t("end.faults_missed", { count: missed }) : t("end.faults_all_called");
    head.textContent = done.faults.length
      ? t("end.faults", { count: done.faults.length, state })
      : t("end.no_faults");
    box.append(head);
    if (!done.faults.length) return;
    const list = document.createElement("ul");
    for (const [i, f] of done.faults.entries()) {
      const ev = events.get(f.fault_version ?? f.version);
      const li = document.createElement("li");
      li.textContent = faultLineWords(f, ev, ctx);
      li.hidden = i >= FAULTS_SHOWN; // a long list opens on "Show all" (the panel stays short)
      list.append(li);
    }
    box.append(list);
    if (done.faults.length <= FAULTS_SHOWN) return;
    const more = document.createElement("button");
    more.type = "button";
    more.className = "show-all";
    more.dataset.testid = "faults-show-all";
    more.setAttribute("aria-expanded", "false");
    more.textContent = t("end.faults_show_all", { count: done.faults.length });
    more.addEventListener("click", () => {
      const open = more.getAttribute("aria-expanded") !== "true";
      more.setAttribute("aria-expanded", String(open));
      list.querySelectorAll("li").forEach((li, i) => (li.hidden = !open && i >= FAULTS_SHOWN));
      more.textContent = open ? t("end.faults_show_fewer") : t("end.faults_show_all", { count: done.faults.length });
    });
    box.append(more);
  }

  // -- panels ----------------------------------------------------------------------------------

  players() {
    return (this.table?.seats ?? []).map((s, i) => s?.name ?? (s?.bot ? t("table.bot") : t("player.n", { n: i + 1 })));
  }

  refreshPanels() {
    const view = this.view;
    const players = view?.players ?? this.players();
    this.drawSeatPanels(view);
    const ruleset = view?.ruleset ?? this.table?.ruleset ?? {};
    const matchOver = this.table?.status === "finished" || Boolean(view?.match_over);
    const me = this.token ? { name: this.me, waiting: this.waiting } : null;
    this.session = this.rotation.draw(view, this.table, me, matchTarget(ruleset.match).replace(/^ · /, ""));
    if (view) {
      const target = matchTarget(ruleset.match);
      // The pair the board names (between a rotation table's games, the one that played).
      const pair = this.boardPair(view);
      const [a, b] = pair.players.map(shownName);
      $("match-score").textContent = `${a} ${pair.totals[0]} – ${pair.totals[1]} ${b}${target}`;
      $("match-score").title = $("match-score").textContent; // the whole of it, if the header cuts it
      let game = "";
      if (matchOver) game = t("table.match_over_short");
      else if (view.game_index !== null && view.over) game = t("table.game_over_short", { n: view.game_index + 1 });
      else if (view.game_index !== null) game = t("table.game_turn", { n: view.game_index + 1, turn: view.turn_number });
      $("game-no").textContent = game;
      const c = $("commitment");
      c.textContent = view.seed
        ? t("table.seed", { seed: fingerprint(view.seed) })
        : t("table.commitment", { commitment: fingerprint(view.commitment) });
      c.title = `${t("table.commitment_title")}\n${view.seed ?? view.commitment ?? ""}`;
      $("turn").textContent = this.turnText(view, players);
      const over = view.over || view.match_over || this.table?.status === "finished";
      this.notice.update(this.seat !== null && !over && view.to_move === this.seat);
    } else {
      $("turn").textContent = this.table?.status === "open" ? t("table.waiting_second") : "";
    }
    $("after-match").hidden = !matchOver;
    $("btn-abandon").hidden = Boolean(this.session); // a seated person resigns, then may leave
    this.rematch.draw();
    const open = this.table?.status === "open";
    // A rotation table takes people into its queue while both seats are taken.
    // The table object is not sent again when the session ends: the view says so first.
    const queueing =
      !matchOver && this.table?.status === "playing" && Boolean(this.table?.rotation?.can_join);
    const outsider = this.seat === null && !this.waiting;
    $("join").hidden = !((open || queueing) && outsider);
    // Only a person at the table may add a bot, and only while no other bot waits (§10).
    const here = Boolean(this.token) && (this.seat !== null || Boolean(this.waiting));
    const botWaiting = (this.table?.rotation?.people ?? []).some((p) => p.bot && p.waiting != null);
    this.rotation.drawAddBot(queueing && here && !botWaiting, this.bots);
    $("join-btn").textContent = queueing ? t("join.queue") : t("join.sit_down");
    const detailsKey = JSON.stringify([this.table?.status, this.table?.rotation?.queue]);
    if ((open || queueing) && outsider && this.joinDetailsDrawn !== detailsKey) {
      this.joinDetailsDrawn = detailsKey;
      showJoinDetails($("join-details"), this.table).catch(() => (this.joinDetailsDrawn = null));
    }
    $("waiting").hidden = !(open && this.seat !== null);
    if (open && this.seat !== null && !this.inviteDrawn) {
      this.inviteDrawn = true;
      renderInvite($("waiting-invite"), `${this.lanBase}/table/${this.matchId}`);
    }
    this.drawGameEnd(view, players, matchOver);
  }

  turnText(view, players) {
    if (this.table?.status === "finished" || view.match_over) return t("turn.match_over");
    if (view.over) return t("turn.game_over");
    if (view.to_move === null || view.to_move === undefined) return t("turn.dealing");
    const mover = shownName(players[view.to_move]) ?? t("player.n", { n: view.to_move + 1 });
    if (this.seat === null) return t("turn.to_move", { who: mover });
    return view.to_move === this.seat ? t("turn.yours") : t("turn.to_move", { who: mover });
  }

  /** The end of a game: result, the score worked out, match totals and target, next game. */
  drawGameEnd(view, players, matchOver) {
    const box = $("game-end");
    const over = Boolean(view && view.result && (view.over || matchOver));
    if (box.hidden === over) {
      box.hidden = !over;
      $("log").scrollTop = $("log").scrollHeight; // the panel shrank the log: keep its end in view
      // On a phone the panel is under the board: bring it into view once.
      if (over && matchMedia("(max-width: 1000px)").matches) box.scrollIntoView({ block: "nearest" });
    }
    if (!over) return;
    this.hideBanner(); // a call's verdict just before the end (then a resignation) is news no more
    // The game as it was played: at a rotation table the seats may have changed since.
    const ctx = this.gameCtx(view);
    const r = view.result;
    const g = view.game_index + 1;
    const win = (seat) => (seat === ctx.viewer ? t("end.you_win") : t("end.wins", { who: playerWords(seat, ctx, true) }));
    let title;
    if (r.kind === "stalemate") title = t("end.stalemate", { n: g });
    else if (r.kind === "resign") {
      const key = 1 - r.winner === ctx.viewer ? "end.resigned.you" : "end.resigned";
      title = t(key, { n: g, win: win(r.winner), who: playerWords(1 - r.winner, ctx) });
    }
    else title = t("end.won", { n: g, win: win(r.winner) });
    $("end-title").textContent = title;
    $("end-why").textContent = r.kind === "resign" ? "" : t("refusal.sentence", { reason: capital(resultWords(r, ctx)) });
    $("end-score").textContent = scoreWorkedOut(view, ctx);
    // "Why 30?": only where the sum shown starts with the 30 of a won game (not a stalemate).
    $("score-help").hidden = !scoreFrom30(view);
    const target = matchTarget(view.ruleset?.match).replace(/^ · /, "");
    if (this.session) {
      this.drawSessionEnd(view, players, matchOver, target);
    } else {
      const totals = `${shownName(players[0])} ${view.totals[0]} – ${view.totals[1]} ${shownName(players[1])}`;
      const quit = this.abandonedBy;
      if (matchOver && quit !== null && quit !== undefined) {
        // Abandoned (docs/spec/rules.md §8): the match ended short of its target, and says why.
        const w = view.match_winner;
        const base = this.abandonClaimed ? "end.match_claimed" : "end.match_abandoned"; // claimed: he was away
        const key = quit === this.seat ? `${base}.you` : w === this.seat ? `${base}.to_you` : base;
        $("end-match").textContent = t(key, { who: shownName(players[quit]), winner: shownName(players[w]), totals });
      } else if (matchOver) {
        const w = view.match_winner;
        const key = w === null || w === undefined ? "end.match_nobody" : w === this.seat ? "end.match_you" : "end.match_won";
        $("end-match").textContent = t(key, { who: shownName(players[w]), totals, target });
      } else {
        $("end-match").textContent = t("end.match", { totals, target });
      }
      this.drawGames(view, players);
    }
    const now = this.ctx(); // who plays the next game, from this page's seat now
    const next = $("next-game");
    const wait = $("next-wait");
    // The flags are about one finished game; a bot is always ready.
    const flags = this.table?.ready_game === view.game_index ? this.table.ready : null;
    const ready = [0, 1].map((s) => Boolean(flags?.[s] || this.table?.seats?.[s]?.bot));
    if (matchOver) {
      next.hidden = true;
      wait.textContent = "";
    } else if (this.seat === null) {
      next.hidden = true;
      wait.textContent = t("end.both_ready");
    } else {
      const other = 1 - this.seat;
      next.hidden = false;
      next.disabled = Boolean(ready[this.seat]);
      next.textContent = ready[this.seat] ? t("end.ready") : t("end.next_game");
      const name = playerWords(other, now, true);
      wait.textContent = ready[other]
        ? t("end.is_ready", { who: name })
        : ready[this.seat]
          ? t("end.waiting_for", { who: playerWords(other, now) })
          : "";
    }
  }

  /**
   * Who played the game this view shows, and this page's place in it. At a rotation table the
   * seat change after a won game comes before the next deal (docs/protocol.md): the view then
   * names the new pair already, so the one who left is put back in the seat he played.
   */
  /**
   * Who the board's cards belong to: the players of the game it shows. Between the games of a
   * rotation table, after a seat change, the board still shows the finished game, so it names
   * the pair that played it (and "you" for the one of them who looks), not the pair seated now;
   * the next deal brings the new pair's names with the new cards.
   */
  boardCtx(view) {
    return view?.over ? this.gameCtx(view) : this.ctx();
  }

  /**
   * The panels beside the trays, named after the game the board shows (`boardCtx`). Their card
   * counts are the board's: while queued actions still fly in, the newest view is ahead of the
   * piles drawn, and "hand 31" beside a badge of 32 would say two things at once.
   */
  drawSeatPanels(view) {
    const shown = this.boardCtx(view);
    const seated = view?.players ?? this.players();
    const drawn = this.shownView && this.shownView.game_index === view?.game_index ? this.shownView : view;
    const counted = view && drawn ? { ...view, piles: drawn.piles, face_down: drawn.face_down } : view;
    if (!this.session || !view || shown.players.every((name, i) => name === seated[i])) {
      this.seats.draw(counted, seated, this.table, this.seat);
      return;
    }
    // A seat changed hands after this game: each panel is the person who played that tray,
    // with his own session total; the connection marks are the seated pair's and stay off.
    const people = new Map((this.table?.rotation?.people ?? []).map((p) => [p.name, p]));
    const table = { seats: shown.players.map((name) => ({ name, bot: people.get(name)?.bot ?? null })) };
    const { totals } = this.boardPair(view);
    this.seats.draw({ ...counted, totals }, shown.players, table, shown.viewer);
  }

  /**
   * The two players the board names and their totals: the view's, except between a rotation
   * table's games after a seat change, when the board still shows the finished game: then its
   * pair, each with his own session total. The header says the same pair as the board.
   */
  boardPair(view) {
    const seated = view?.players ?? this.players();
    const players = this.boardCtx(view).players;
    if (!this.session || !view || players.every((name, i) => name === seated[i])) {
      return { players: seated, totals: view?.totals ?? [0, 0] };
    }
    const people = new Map((this.table?.rotation?.people ?? []).map((p) => [p.name, p]));
    const session = view.session;
    const total = (name) => session?.totals?.[session.people.indexOf(name)] ?? people.get(name)?.total ?? 0;
    return { players, totals: players.map(total) };
  }

  gameCtx(view) {
    const ctx = this.ctx();
    if (!this.session || !view) return ctx;
    const change = [this.lastChange, this.table?.rotation?.last_change].find(
      (c) => c && c.game_index === view.game_index,
    );
    const players = [...(view.players ?? [])];
    if (change && players[change.seat] === change.entered) players[change.seat] = change.left;
    const mine = this.me && this.token ? players.indexOf(this.me) : -1;
    return { ...ctx, players, viewer: mine >= 0 ? mine : null };
  }

  /** A rotation table's game end: who plays next (or who won the session), every total. */
  drawSessionEnd(view, players, sessionOver, target) {
    const { people } = this.session;
    const winner = this.session.winner ?? (sessionOver ? players[view.match_winner] : null);
    let text;
    if (sessionOver && winner) {
      const who = people.find((p) => p.name === winner);
      const params = { who: shownName(winner), points: who?.total ?? 0, target };
      text = winner === this.me && this.token ? t("end.session_you", params) : t("end.session_won", params);
    } else if (sessionOver) {
      text = t("end.session_over", { target });
    } else {
      text = t("end.session_next", { a: shownName(players[0]), b: shownName(players[1]), target });
    }
    $("end-match").textContent = text;
    // Between games the totals are in "At this table"; the session's end ranks everybody here.
    const table = $("end-games");
    table.innerHTML = "";
    table.classList.toggle("standings", sessionOver);
    table.hidden = !sessionOver;
    if (!sessionOver) return;
    const caption = table.createCaption();
    caption.textContent = t("end.final_standings");
    const head = table.createTHead().insertRow();
    for (const text of ["#", t("rotation.col_player"), t("rotation.col_points"), t("rotation.col_wins")]) {
      const th = document.createElement("th");
      th.scope = "col";
      th.textContent = text;
      head.append(th);
    }
    const body = table.createTBody();
    standings(people).forEach((p, i) => {
      const row = body.insertRow();
      row.dataset.name = p.name;
      row.insertCell().textContent = String(i + 1);
      const th = document.createElement("th");
      th.scope = "row";
      th.textContent = p.name === this.me && this.token ? `${p.name}${t("seat.you")}` : shownName(p.name);
      row.append(th);
      row.insertCell().textContent = String(p.total);
      row.insertCell().textContent = String(p.wins);
    });
  }

  drawGames(view, players) {
    const table = $("end-games");
    table.innerHTML = "";
    table.hidden = false;
    const head = table.insertRow();
    for (const text of [t("end.game"), shownName(players[0]), shownName(players[1])]) {
      const th = document.createElement("th");
      th.textContent = text;
      head.append(th);
    }
    (view.game_scores ?? []).forEach((s, i) => {
      const row = table.insertRow();
      for (const text of [String(i + 1), String(s[0]), String(s[1])]) row.insertCell().textContent = text;
    });
    const sum = table.insertRow();
    for (const text of [t("end.total"), String(view.totals[0]), String(view.totals[1])]) {
      const th = document.createElement("th");
      th.textContent = text;
      sum.append(th);
    }
  }

  async nextGame() {
    $("next-game").disabled = true;
    const ack = await emitAck(this.socket, "next_game", {
      match_id: this.matchId,
      seat_token: this.token,
    }).catch(() => null);
    if (!ack?.ok) {
      $("next-game").disabled = false;
      this.say(ack ? capital(reasonWords(ack, this.ctx())) : t("table.no_answer"), "refused");
    }
  }

  /** Resign every game left: the match ends now (docs/web.md says how it scores). */
  async abandon() {
    const ack = await emitAck(this.socket, "abandon", {
      match_id: this.matchId,
      seat_token: this.token,
    }).catch(() => null);
    if (!ack?.ok) this.say(ack ? capital(reasonWords(ack, this.ctx())) : t("table.no_answer"), "refused");
  }

  /**
   * A waiting person leaves a rotation table for good (`abandon`, docs/protocol.md): his total
   * stays in the session; this browser forgets his token and watches from now on.
   */
  async leaveQueue() {
    const ack = await emitAck(this.socket, "abandon", {
      match_id: this.matchId,
      seat_token: this.token,
    }).catch(() => null);
    if (!ack?.ok) {
      this.say(ack ? capital(reasonWords(ack, this.ctx())) : t("table.no_answer"), "refused");
      return;
    }
    forgetSeat(this.matchId);
    this.token = null;
    this.seat = null;
    this.waiting = false;
    this.me = null;
    this.say(t("rotation.you_left"), "info", "stay");
    await this.onConnect(false);
  }

  /** Offer the claim once the opponent has been away longer than the server's grace period. */
  showClaim() {
    const claim = $("claim");
    const other = this.seat === null ? null : this.table?.presence?.[1 - this.seat];
    const at = other?.claimable_at_ms;
    const serverNow = Date.now() - this.seats.skewMs;
    const show =
      this.table?.status === "playing" && !other?.connected && typeof at === "number" && serverNow >= at;
    if (claim.hidden === show) claim.hidden = !show;
  }

  async claim(what) {
    const ack = await emitAck(this.socket, "claim", {
      match_id: this.matchId,
      seat_token: this.token,
      what,
    }).catch(() => null);
    if (!ack?.ok) this.say(ack ? capital(reasonWords(ack, this.ctx())) : t("claim.refused"), "refused");
  }

  onTable(table) {
    if (table.match_id && table.match_id !== this.matchId) return;
    this.table = table;
    this.refreshPanels();
  }

  /** Put a bot of strength `bot` at the back of a rotation table's queue: a person at the table
   * asks with his seat token, one bot waiting at a time (docs/spec/rules.md §10). */
  async queueBot(bot) {
    try {
      const body = { name: bot, bot, seat_token: this.token };
      const res = await postJSON(`/api/tables/${encodeURIComponent(this.matchId)}/join`, body);
      this.say(t("rotation.bot_added", { name: res.name }), "info", 4000);
    } catch (err) {
      this.say(capital(reasonWords(err, this.ctx())), "refused");
    }
  }

  async join() {
    const name = $("join-name").value.trim();
    if (!name) {
      this.say(t("join.type_name"), "refused");
      return;
    }
    saveName(name);
    try {
      const res = await postJSON(`/api/tables/${encodeURIComponent(this.matchId)}/join`, { name });
      // At a rotation table whose seats are taken the person waits in the queue (no seat yet).
      saveSeat(this.matchId, res.seat ?? null, res.seat_token, res.name ?? name);
      this.seat = res.seat ?? null;
      this.waiting = Boolean(res.waiting);
      this.me = res.name ?? name;
      this.token = res.seat_token;
      this.version = null; // ask for a fresh snapshot seen from the new seat
      this.board.setBottom(this.seat ?? 0);
      await this.onConnect(false);
    } catch (err) {
      this.say(err.message, "refused");
    }
  }

  /** Send one action; the answer comes back as updates (or a refusal, shown with its reason). */
  async act(action) {
    if (this.seat === null || !this.token) {
      this.say(t("table.watching_only"), "refused");
      return null;
    }
    const payload = { ...action, seat: this.seat };
    delete payload.text;
    const msg = {
      match_id: this.matchId,
      seat_token: this.token,
      command_id: commandId(),
      action: payload,
    };
    try {
      const ack = await emitAck(this.socket, "command", msg);
      if (!ack?.ok) this.onRefused(ack);
      else this.clearMessage("refused", "cursor", "hint");
      return ack;
    } catch {
      this.say(t("table.move_no_answer"), "refused");
      return null;
    }
  }

  onRefused(msg) {
    if (!msg || (msg.command_id && this.lastRefused === msg.command_id)) return;
    this.lastRefused = msg.command_id;
    this.say(t("word.refused", { text: refusalWords(msg, this.ctx()) }), "refused");
    this.board.root.classList.add("shake");
    setTimeout(() => this.board.root.classList.remove("shake"), 400);
  }

  /**
   * Show a message. Its lifetime: "action" (default: gone with the next action at the table),
   * "stay" (until replaced), or a number of milliseconds.
   */
  say(text, kind = "info", life = "action") {
    const m = $("message");
    m.textContent = text;
    m.className = `message ${kind}`;
    m.dataset.kind = kind;
    this.messageExpires = typeof life === "number" ? Date.now() + life : null;
  }

  expireMessage() {
    if (this.messageExpires && Date.now() >= this.messageExpires) {
      this.messageExpires = null;
      this.clearMessage($("message").dataset.kind);
    }
  }

  /** Clear the message if it is of one of these kinds (by default a refusal). */
  clearMessage(...kinds) {
    const m = $("message");
    if ((kinds.length ? kinds : ["refused"]).includes(m.dataset.kind)) {
      m.textContent = "";
      m.className = "message";
      m.dataset.kind = "";
    }
  }

  showBanner(title, text, ms = 4000) {
    const b = $("banner");
    b.innerHTML = "";
    const h = document.createElement("h2");
    h.textContent = title;
    const p = document.createElement("p");
    p.textContent = text;
    b.append(h, p);
    b.hidden = false;
    clearTimeout(this.bannerTimer);
    this.bannerTimer = setTimeout(() => this.hideBanner(), ms);
  }

  hideBanner() {
    clearTimeout(this.bannerTimer);
    $("banner").hidden = true;
  }
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** "points:300" → " · first to 300 points"; "wins:2" → " · first to 2 games won". */
function matchTarget(match) {
  const m = /^(points|wins):(\d+)$/.exec(match ?? "");
  if (!m) return "";
  if (m[1] === "points") return ` · ${t("option.match.points", { n: m[2] })}`;
  return ` · ${m[2] === "1" ? t("option.match.value.wins:1") : t("option.match.wins", { n: m[2] })}`;
}

/** 2 per reserve card, 1 per hand, turned and waste card (docs/spec/rules.md §8), from a revealed view. */
function penaltyOf(view, seat) {
  const n = (p) => (view.piles?.[`${p}${seat}`] ?? []).length;
  return { reserve: n("R"), loose: n("H") + n("X") + n("W") };
}

/** The game's score, worked out from the final position: "30 + 2 × 4 reserve + …  = 61". */
/** Does the game's score read as the rules' sum, 30 + 2 × reserve + 1 × the rest (a win)? */
function scoreFrom30(view) {
  const r = view.result;
  if (!r || r.kind === "stalemate" || r.winner === null || r.winner === undefined) return false;
  const p = penaltyOf(view, 1 - r.winner);
  return 30 + 2 * p.reserve + p.loose === (r.score ?? [0, 0])[r.winner];
}

function scoreWorkedOut(view, ctx) {
  const r = view.result;
  const score = r.score ?? [0, 0];
  if (r.kind === "stalemate") {
    const parts = [0, 1].map((s) => {
      const p = penaltyOf(view, s);
      const total = 2 * p.reserve + p.loose;
      return { s, text: t("score.penalty", { who: playerWords(s, ctx, true), reserve: p.reserve, loose: p.loose, total }), total };
    });
    const diff = Math.abs(parts[0].total - parts[1].total);
    const got = Math.max(...score);
    const worked = diff === got ? t("score.difference", { diff }) : t("score.plain", { score: score.join("–") });
    return t("score.penalties", { a: parts[0].text, b: parts[1].text, worked });
  }
  const loser = 1 - r.winner;
  const p = penaltyOf(view, loser);
  const total = 30 + 2 * p.reserve + p.loose;
  const got = score[r.winner];
  const you = r.winner === ctx.viewer;
  const who = playerWords(r.winner, ctx);
  if (total !== got) return t(you ? "score.you_get" : "score.gets", { who, points: got });
  const reserve = loser === ctx.viewer ? t("pile.R.yours") : t("pile.R.players", { player: playerWords(loser, ctx) });
  const params = { reserve: p.reserve, loose: p.loose, total, pile: reserve, who };
  return t(you ? "score.worked_you" : "score.worked", params);
}

function lastActionPiles(action) {
  if (!action) return {};
  if (action.from || action.to) return { from: action.from, to: action.to };
  return {};
}

const matchId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() ?? "");
new TablePage(matchId).start();
