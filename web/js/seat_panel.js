// The text beside each player's tray: name and pack colour, whose turn, the move clock, the counts
// of the face-down piles, and whether the player is connected.

import { t } from "./i18n.js";
import { shownName } from "./words.js";

function reserveDown(view, piles, name) {
  return view.face_down?.[name] ?? countDown(piles[name]);
}

function countDown(cards) {
  return (cards ?? []).filter((c) => c === null).length;
}

function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

function mmss(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

export class SeatPanel {
  constructor(board) {
    this.board = board;
    this.skewMs = 0; // how far this computer's clock is ahead of the server's (estimated)
  }

  /** Learn the clock difference from an event's server time stamp. */
  observeServerTime(atMs) {
    if (typeof atMs !== "number") return;
    const skew = Date.now() - atMs;
    this.skewMs = this.seen ? Math.min(this.skewMs, skew) : skew;
    this.seen = true;
  }

  draw(view, players, table, mySeat) {
    for (const seat of [0, 1]) {
      const el = this.board.seatInfo(seat);
      if (!el) continue;
      const name = players?.[seat] ?? table?.seats?.[seat]?.name ?? "(free seat)";
      const bot = table?.seats?.[seat]?.bot;
      const presence = table?.presence?.[seat] ?? table?.seats?.[seat];
      const away = presence && presence.connected === false && !bot && view && !view.over;
      const you = seat === mySeat ? t("seat.you") : "";
      const toMove = view && !view.over && view.to_move === seat;
      const p = view?.piles ?? {};
      const counts = view
        ? t("seat.counts", {
            // With two reserves (Italian variant) both count: R and Q together.
            reserve: (p[`R${seat}`]?.length ?? 0) + (p[`Q${seat}`]?.length ?? 0),
            down: reserveDown(view, p, `R${seat}`) + reserveDown(view, p, `Q${seat}`),
            // With three hands (Italian variant) all three count: H, I and J together.
            hand: ["H", "I", "J"].reduce((sum, kind) => sum + (p[`${kind}${seat}`]?.length ?? 0), 0),
            waste: p[`W${seat}`]?.length ?? 0,
          })
        : "";
      const games = view?.totals ? t("seat.points", { n: view.totals[seat] }) : "";
      const parts = this.parts(el, seat);
      setText(parts.name, `${shownName(name)}${bot && !name.includes("bot") ? t("seat.bot") : ""}${you}`);
      parts.toMove.hidden = !toMove;
      setText(parts.counts, [games, counts].filter(Boolean).join(" · "));
      setText(parts.presence, away ? t("seat.away") : "");
    }
    this.tick(view);
  }

  /** The elements of a seat's panel, made once (again after the board is rebuilt). */
  parts(el, seat) {
    if (el.firstChild) {
      const q = (cls) => el.querySelector(`.${cls}`);
      return { name: q("name"), toMove: q("to-move"), counts: q("counts"), presence: q("presence") };
    }
    const make = (tag, cls) => {
      const e = document.createElement(tag);
      e.className = cls;
      return e;
    };
    const who = make("div", "who");
    who.innerHTML = `<span class="swatch p${seat}" title="${t("seat.pack", { n: seat + 1 })}"></span>`;
    const name = make("span", "name");
    name.dataset.testid = `name-${seat}`;
    const toMove = make("span", "to-move");
    toMove.textContent = t("seat.to_move");
    who.append(name, toMove);
    const counts = make("div", "counts");
    const clock = make("div", "clock");
    clock.dataset.seat = String(seat);
    const presence = make("div", "presence");
    el.append(who, counts, clock, presence);
    return { name, toMove, counts, presence };
  }

  /** Redraw the clocks (four times a second). */
  tick(view) {
    for (const seat of [0, 1]) {
      const el = this.board.root.querySelector(`.seat-info[data-seat="${seat}"] .clock`);
      if (!el) continue;
      const clock = view?.clock;
      if (!view || view.over || view.to_move !== seat || !clock?.turn_started_at_ms) {
        setText(el, "");
        continue;
      }
      const serverNow = Date.now() - this.skewMs;
      const used = serverNow - clock.turn_started_at_ms;
      if (clock.limit_s) {
        // The limit is per move (docs/protocol.md): it restarts with every action.
        const since = serverNow - (clock.move_started_at_ms ?? clock.turn_started_at_ms);
        const left = clock.limit_s * 1000 - since;
        setText(el, t("seat.time_left", { time: mmss(left) }));
        el.classList.toggle("low", left < 5000);
      } else {
        setText(el, t("seat.turn_time", { time: mmss(used) }));
        el.classList.remove("low");
      }
    }
  }
}
