// A rotation table (docs/spec/rules.md §10, docs/protocol.md "Rotation tables"): three or four
// people, two seated, the others waiting in a queue. This draws who is at the table with his
// session total, the queue (next up first), "you are waiting — N ahead of you", and says each
// seat change in a live region, as the turn notice says "your turn".

import { t } from "./i18n.js";
import { chime } from "./prefs.js";
import { botWord, shownName } from "./words.js";

const $ = (id) => document.getElementById(id);

/**
 * The people of a rotation table, newest first from the view (`session`: names, totals, wins and
 * the queue, as of the last event), completed from the table object (`rotation.people`: seats,
 * presence, bots). Null at any other table.
 */
export function sessionPeople(view, table) {
  const rotation = table?.rotation ?? null;
  const session = view?.session ?? null;
  if (!rotation && !session) return null;
  const known = new Map((rotation?.people ?? []).map((p) => [p.name, p]));
  const names = session?.people ?? (rotation?.people ?? []).map((p) => p.name);
  const queue = session?.queue ?? rotation?.queue ?? [];
  const seated = session ? (view?.players ?? []) : (rotation?.seated ?? []);
  const people = names.map((name, i) => {
    const p = known.get(name) ?? {};
    const seat = seated.indexOf(name);
    return {
      name,
      bot: p.bot ?? null,
      connected: p.connected ?? true,
      seat: seat >= 0 ? seat : null,
      waiting: queue.indexOf(name) >= 0 ? queue.indexOf(name) : null,
      total: session?.totals?.[i] ?? p.total ?? 0,
      wins: session?.wins?.[i] ?? p.wins ?? 0,
    };
  });
  return {
    mode: session?.mode ?? rotation?.mode ?? null,
    people,
    queue,
    canJoin: Boolean(rotation?.can_join),
    winner: rotation?.winner ?? null,
    // Over once the view says the match is (the table object may not have been sent since).
    over: Boolean(rotation?.winner) || Boolean(view?.match_over),
  };
}

/** People by their standing: highest total first, then most games won, then joining order. */
export function standings(people) {
  return people
    .map((p, i) => ({ ...p, order: i }))
    .sort((a, b) => b.total - a.total || b.wins - a.wins || a.order - b.order);
}

/** Where a person is: "seat 1", "next up", "waiting (2nd)". */
function placeWords(p) {
  if (p.seat !== null) return t("rotation.place_seat", { n: p.seat + 1 });
  if (p.waiting === 0) return t("rotation.next_up");
  if (p.waiting !== null) return t("rotation.place_waiting", { n: p.waiting + 1 });
  return t("rotation.place_gone");
}

/** A person's name as the table shows it: "(you)", "(bot)", "(away)" after it. */
function nameWords(p, me) {
  let text = shownName(p.name);
  if (p.bot && !p.name.includes("bot")) text += t("seat.bot");
  if (p.name === me) text += t("seat.you");
  if (!p.bot && p.connected === false) text += ` ${t("rotation.away")}`;
  return text;
}

/** A SeatsRotated event in words, from the looker's side (`me`: his name, or null). */
export function seatChangeWords(ev, mode, me) {
  const n = (ev.game_index ?? 0) + 1;
  const why = mode === "loser_out" ? "loser_out" : "winner_out";
  const left =
    ev.left === me
      ? t(`rotation.left_you.${why}`, { n })
      : t(`rotation.left.${why}`, { who: ev.left, n });
  const entered = ev.entered === me ? t("rotation.entered_you") : t("rotation.entered", { who: ev.entered });
  return t("rotation.change", { left, entered });
}

export class RotationPanel {
  /**
   * `leave`: what "Leave for good" does (the page sends `abandon`); `addBot(name)`: what "Add to
   * the queue" does with the strength chosen (the page posts `join` with `bot`).
   */
  constructor(leave, addBot) {
    this.botsKey = null;
    $("add-bot-btn").addEventListener("click", () => addBot($("add-bot-strength").value));
    const menu = (open) => {
      $("leave-menu").hidden = !open;
      $("leave-queue").hidden = open;
    };
    $("leave-queue").addEventListener("click", () => {
      menu(true);
      $("leave-confirm").focus();
    });
    $("leave-cancel").addEventListener("click", () => {
      menu(false);
      $("leave-queue").focus();
    });
    $("leave-confirm").addEventListener("click", () => {
      menu(false);
      leave();
    });
  }

  /**
   * Redraw from the newest view and table object. `me`: this browser's person (his name, and
   * whether he waits), or null for a spectator. Returns the people (null at a two-seat table).
   */
  draw(view, table, me, target) {
    const session = sessionPeople(view, table);
    $("rotation").hidden = !session;
    if (!session) {
      $("queue-you").hidden = true;
      return null;
    }
    $("people-caption").textContent = target
      ? t("rotation.caption_target", { target })
      : t("rotation.caption");
    const rows = $("people-rows");
    const lines = session.people.map((p) => [
      nameWords(p, me?.name),
      placeWords(p),
      String(p.total),
      String(p.wins),
    ]);
    const key = JSON.stringify(lines);
    if (rows.dataset.key !== key) {
      rows.dataset.key = key;
      rows.innerHTML = "";
      session.people.forEach((p, i) => {
        const row = rows.insertRow();
        row.dataset.name = p.name;
        if (p.name === me?.name) row.classList.add("me");
        if (p.seat !== null) row.classList.add("seated");
        const th = document.createElement("th");
        th.scope = "row";
        th.textContent = lines[i][0];
        row.append(th);
        for (const text of lines[i].slice(1)) row.insertCell().textContent = text;
      });
    }
    this.drawQueue(session.queue, me?.name);
    this.drawWaiting(session, me);
    return session;
  }

  /**
   * "A bot for the queue": while both seats are taken, the session goes on and the table takes
   * more people, a person at the table (seated or waiting) may put a bot of any strength
   * (`bots`, from `/api/presets`) at the back of the queue while no other bot waits there
   * (`open`: all of that, decided by the page; docs/spec/rules.md §10).
   */
  drawAddBot(allowed, bots) {
    const box = $("add-bot");
    const open = allowed && bots.length > 0;
    box.hidden = !open;
    const key = JSON.stringify(bots.map((b) => b.name));
    if (!open || this.botsKey === key) return;
    this.botsKey = key;
    const select = $("add-bot-strength");
    select.innerHTML = "";
    for (const b of bots) {
      const option = new Option(t("lobby.opponent_bot", { name: botWord(b.name) }), b.name);
      option.title = b.description;
      select.append(option);
    }
    select.value = bots.some((b) => b.name === "steady") ? "steady" : bots[0].name;
  }

  drawQueue(queue, myName) {
    const list = $("queue");
    const key = JSON.stringify([queue, myName]);
    if (list.dataset.key === key) return;
    list.dataset.key = key;
    list.innerHTML = "";
    if (!queue.length) {
      const li = document.createElement("li");
      li.className = "none";
      li.textContent = t("rotation.queue_empty");
      list.append(li);
      return;
    }
    queue.forEach((name, i) => {
      const li = document.createElement("li");
      li.dataset.name = name;
      li.textContent = name === myName ? `${name}${t("seat.you")}` : name;
      if (i === 0) {
        li.classList.add("next");
        const mark = document.createElement("strong");
        mark.textContent = ` — ${t("rotation.next_up")}`;
        li.append(mark);
      }
      list.append(li);
    });
  }

  /** "You are waiting — 1 ahead of you": only for a person of this table who waits. */
  drawWaiting(session, me) {
    const box = $("queue-you");
    const place = me?.name ? session.queue.indexOf(me.name) : -1;
    box.hidden = place < 0 || session.over;
    if (box.hidden) return;
    const text = place === 0 ? t("rotation.you_next") : t("rotation.you_wait", { count: place });
    const el = $("queue-you-text");
    if (el.textContent !== text) el.textContent = text;
  }

  /**
   * A seat change happened (a SeatsRotated event): say who leaves and who sits, in the live
   * region; the person who gets a seat hears the chime (Settings) as on his turn.
   */
  /** A new game is dealt: the seat change before it is news no more. */
  clear() {
    $("seat-change").textContent = "";
  }

  announce(ev, mode, myName) {
    const text = seatChangeWords(ev, mode, myName);
    $("seat-change").textContent = text;
    if (ev.entered === myName) chime();
    return text;
  }
}
