// The table page: one seat's (or a spectator's) live view of a match. Every move goes to the server
// as a command; the board is redrawn only from the views the server sends back, so the page never
// has to know the rules: `view.legal` says what may be done, `refused` says why not.

import { Board } from "./board.js";
import { BoardAccess } from "./board_access.js";
import { describeEvent, eventPiles } from "./events.js";
import { Controls } from "./table_input.js";
import { lanBase, renderInvite } from "./invite.js";
import { showJoinDetails } from "./join_details.js";
import {
  commandId,
  emitAck,
  getJSON,
  loadSeat,
  openSocket,
  postJSON,
  saveName,
  saveSeat,
  savedName,
} from "./net.js";
import { RematchPanel } from "./rematch.js";
import { SeatPanel } from "./seat_panel.js";
import { motionAllowed, mountPrefs, onPrefs } from "./prefs.js";
import { TurnNotice } from "./turn_notice.js";

const $ = (id) => document.getElementById(id);

class TablePage {
  constructor(matchId) {
    this.matchId = matchId;
    const saved = loadSeat(matchId);
    this.seat = saved?.seat ?? null;
    this.token = saved?.seat_token ?? null;
    this.view = null;
    this.version = null; // last stream version applied; sent back on reconnect
    this.table = null;
    this.everConnected = false;
    this.board = new Board($("board"), { bottom: this.seat ?? 0, animate: true });
    this.seats = new SeatPanel(this.board);
    this.input = new Controls(this);
    this.access = new BoardAccess(
      this.board,
      () => ({ seat: this.seat, names: this.view?.players ?? this.players() }),
      (pile) => this.input.onPileClick(pile),
    );
    $("replay-link").href = `/replay/${encodeURIComponent(matchId)}`;
    $("join-name").value = savedName();
    $("join-btn").addEventListener("click", () => this.join());
    $("claim-resign").addEventListener("click", () => this.claim("resign"));
    $("claim-bot").addEventListener("click", () => this.claim("bot"));
    this.rematch = new RematchPanel(this, () => Date.now() - this.seats.skewMs);
    this.notice = new TurnNotice();
    mountPrefs(document.querySelector("header.bar"));
    onPrefs(() => (this.board.animate = motionAllowed()));
    $("after-replay").href = `/replay/${encodeURIComponent(matchId)}`;
    window.crapette = this; // for tests and the curious: the page's state, read-only by convention
  }

  async start() {
    this.lanBase = lanBase(await getJSON("/api/server-info").catch(() => null));
    try {
      this.onTable(await getJSON(`/api/tables/${encodeURIComponent(this.matchId)}`));
    } catch (err) {
      this.say(`This table does not exist (${err.message}).`, "refused");
      return;
    }
    this.socket = openSocket();
    this.socket.on("connect", () => this.onConnect());
    this.socket.on("disconnect", () => this.onDisconnect());
    this.socket.on("snapshot", (msg) => this.onSnapshot(msg));
    this.socket.on("update", (msg) => this.onUpdate(msg));
    this.socket.on("table", (msg) => this.onTable(msg));
    this.socket.on("refused", (msg) => this.onRefused(msg));
    this.socket.on("error", (msg) => this.say(msg?.message ?? "error", "refused"));
    setInterval(() => {
      this.seats.tick(this.view);
      this.showClaim();
    }, 250);
    setInterval(() => this.rematch.draw(), 1000); // an offer lapses with time
  }

  async onConnect() {
    const again = this.everConnected;
    this.everConnected = true;
    const conn = $("conn");
    conn.textContent = "joining…";
    let ack;
    try {
      ack = await emitAck(this.socket, "join_table", {
        match_id: this.matchId,
        seat_token: this.token,
        last_version: this.version,
      });
    } catch {
      conn.textContent = "no answer";
      conn.classList.add("down");
      return;
    }
    if (!ack?.ok) {
      if (ack?.code === "forbidden" && this.token) {
        // A stale token (another server, a purged table): watch instead.
        this.token = null;
        this.seat = null;
        this.board.setBottom(0);
        return this.onConnect();
      }
      this.say(ack?.message ?? "could not join", "refused");
      return;
    }
    this.seat = ack.seat ?? null;
    this.board.setBottom(this.seat ?? 0);
    conn.classList.remove("down");
    conn.textContent = this.seat === null ? "watching" : `seat ${this.seat + 1}`;
    if (again) this.say(`Reconnected — caught up from version ${this.version ?? 0}.`, "info");
    this.refreshPanels();
  }

  onDisconnect() {
    const conn = $("conn");
    conn.textContent = "reconnecting…";
    conn.classList.add("down");
    this.say("Connection lost — reconnecting by itself…", "refused");
  }

  onSnapshot(msg) {
    if (msg.match_id !== this.matchId) return;
    this.version = msg.version;
    this.setView(msg.view, null);
  }

  onUpdate(msg) {
    if (msg.match_id !== this.matchId) return;
    if (this.version !== null && msg.version <= this.version) return; // already seen
    this.version = msg.version;
    const ev = msg.event;
    this.seats.observeServerTime(ev?.at_ms);
    if (ev?.type) this.onEvent(ev);
    this.setView(msg.view, ev);
  }

  onEvent(ev) {
    const players = this.view?.players ?? this.players();
    if (ev.type === "CrapetteCalled") {
      const right = ev.verdict === "right";
      this.showBanner(
        right ? "Crapette! — right call" : "Crapette! — wrong call",
        describeEvent(ev, players),
        2600,
      );
      this.say(describeEvent(ev, players), "verdict");
    } else if (["GameWon", "GameStalemated", "GameResigned", "MatchWon"].includes(ev.type)) {
      this.showBanner(ev.type === "MatchWon" ? "Match over" : "Game over", describeEvent(ev, players));
    } else if (ev.type === "TimeExpired" || ev.type === "GameStarted") {
      this.say(describeEvent(ev, players), "info");
    } else if (ev.fault) {
      this.say(describeEvent(ev, players), "info");
    } else if (ev.type === "DrawOffered" && ev.seat !== this.seat) {
      this.say(`${describeEvent(ev, players)} — press O to accept.`, "info");
    } else if (ev.type === "DrawOffered" && this.seat !== null) {
      const other = players[1 - this.seat] ?? "your opponent";
      this.say(`You offer a stalemate: it stands until ${other} accepts or ends a turn.`, "info");
    }
  }

  setView(view, ev) {
    if (!view) {
      this.view = null;
      this.refreshPanels();
      return;
    }
    this.view = view;
    this.board.render(view);
    const last = ev ? eventPiles(ev) : lastActionPiles(view.last_action);
    // An event that moves no card (a turn ending, a call) leaves the last move marked.
    if (!ev || last.from || last.to) {
      this.board.mark("last-from", last.from ? [last.from] : []);
      this.board.mark("last-to", last.to ? [last.to] : []);
      this.board.mark("fault", ev?.fault && last.to ? [last.to] : []);
    }
    this.input.onView(view);
    this.refreshPanels();
  }

  players() {
    return (this.table?.seats ?? []).map((s, i) => s?.name ?? (s?.bot ? `bot` : `seat ${i + 1}`));
  }

  refreshPanels() {
    const view = this.view;
    const players = view?.players ?? this.players();
    this.seats.draw(view, players, this.table, this.seat);
    const ruleset = view?.ruleset ?? this.table?.ruleset ?? {};
    if (view) {
      const target = matchTarget(ruleset.match);
      $("match-score").textContent = `${players[0]} ${view.totals[0]} – ${view.totals[1]} ${players[1]}${target}`;
      $("game-no").textContent =
        view.game_index === null ? "" : `game ${view.game_index + 1}, turn ${view.turn_number}`;
      const c = $("commitment");
      c.textContent = view.seed ? `seed ${view.seed}` : `commitment ${view.commitment ?? ""}`;
      $("turn").textContent = this.turnText(view, players);
      const over = view.over || view.match_over || this.table?.status === "finished";
      this.notice.update(this.seat !== null && !over && view.to_move === this.seat);
    } else {
      $("turn").textContent = this.table?.status === "open" ? "Waiting for a second player." : "";
    }
    const finished = this.table?.status === "finished" || Boolean(this.view?.match_over);
    $("after-match").hidden = !finished;
    this.rematch.draw();
    const open = this.table?.status === "open";
    $("join").hidden = !(open && this.seat === null);
    if (open && this.seat === null && !this.joinDetailsDrawn) {
      this.joinDetailsDrawn = true;
      showJoinDetails($("join-details"), this.table).catch(() => (this.joinDetailsDrawn = false));
    }
    $("waiting").hidden = !(open && this.seat !== null);
    if (open && this.seat !== null && !this.inviteDrawn) {
      this.inviteDrawn = true;
      renderInvite($("waiting-invite"), `${this.lanBase}/table/${this.matchId}`);
    }
  }

  turnText(view, players) {
    if (this.table?.status === "finished" || view.match_over) return "Match over.";
    if (view.over) return "Game over.";
    if (view.to_move === null || view.to_move === undefined) return "Dealing…";
    const mover = players[view.to_move] ?? `seat ${view.to_move + 1}`;
    if (this.seat === null) return `${mover} to move.`;
    return view.to_move === this.seat ? "Your turn." : `${mover} to move.`;
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
    if (!ack?.ok) this.say(ack?.message ?? "The claim was not accepted.", "refused");
  }

  onTable(table) {
    if (table.match_id && table.match_id !== this.matchId) return;
    this.table = table;
    this.refreshPanels();
  }

  async join() {
    const name = $("join-name").value.trim();
    if (!name) {
      this.say("Type a name first.", "refused");
      return;
    }
    saveName(name);
    try {
      const res = await postJSON(`/api/tables/${encodeURIComponent(this.matchId)}/join`, { name });
      saveSeat(this.matchId, res.seat, res.seat_token, name);
      this.seat = res.seat;
      this.token = res.seat_token;
      this.version = null; // ask for a fresh snapshot seen from the new seat
      this.board.setBottom(this.seat);
      await this.onConnect();
    } catch (err) {
      this.say(err.message, "refused");
    }
  }

  /** Send one action; the answer comes back as updates (or a refusal, shown with its reason). */
  async act(action) {
    if (this.seat === null || !this.token) {
      this.say("You are watching; sit down at an open table to play.", "refused");
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
      else this.clearMessage("refused", "cursor");
      return ack;
    } catch {
      this.say("The server did not answer; the move may not have been played.", "refused");
      return null;
    }
  }

  onRefused(msg) {
    if (!msg || this.lastRefused === msg.command_id) return;
    this.lastRefused = msg.command_id;
    const rule = msg.rule ? ` (${msg.rule})` : "";
    this.say(`Refused${rule}: ${msg.message ?? msg.code}`, "refused");
    this.board.root.classList.add("shake");
    setTimeout(() => this.board.root.classList.remove("shake"), 400);
  }

  say(text, kind = "info") {
    const m = $("message");
    m.textContent = text;
    m.className = `message ${kind}`;
    m.dataset.kind = kind;
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
    this.bannerTimer = setTimeout(() => (b.hidden = true), ms);
  }
}

/** "points:300" → " · first to 300 points"; "wins:2" → " · first to 2 games won". */
function matchTarget(match) {
  const m = /^(points|wins):(\d+)$/.exec(match ?? "");
  if (!m) return "";
  if (m[1] === "points") return ` · first to ${m[2]} points`;
  return m[2] === "1" ? " · one game" : ` · first to ${m[2]} games won`;
}

function lastActionPiles(action) {
  if (!action) return {};
  if (action.from || action.to) return { from: action.from, to: action.to };
  return {};
}

const matchId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() ?? "");
new TablePage(matchId).start();
