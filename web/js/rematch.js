// The rematch after a finished match, as an offer and an answer (docs/protocol.md): a player
// offers, the other accepts or declines; both then sit at the new table in the seats they had,
// with the seat tokens they had. At a rotation table it is "another session": the two seated
// offer and answer, and the people waiting come along too, in the queue in their order, each
// with his token. A spectator only hears of it and may follow, as a spectator.

import { has, t } from "./i18n.js";
import { loadSeat, postJSON, saveSeat } from "./net.js";

const $ = (id) => document.getElementById(id);

export class RematchPanel {
  /**
   * @param {object} page  the table page: matchId, seat, token, table, say(), players()
   * @param {() => number} serverNow  the server's clock, as this page estimates it
   */
  constructor(page, serverNow) {
    this.page = page;
    this.serverNow = serverNow;
    this.seenOpen = undefined; // the new table's id when this page first saw the table
    $("rematch-btn").addEventListener("click", () => this.answer("offer"));
    $("rematch-accept").addEventListener("click", () => this.answer("accept"));
    $("rematch-decline").addEventListener("click", () => this.answer("decline"));
  }

  async answer(answer) {
    const { page } = this;
    try {
      const res = await postJSON(`/api/tables/${encodeURIComponent(page.matchId)}/rematch`, {
        seat_token: page.token,
        answer,
      });
      if (res.status === "opened") this.follow(res.match_id);
    } catch (err) {
      page.say(has(`refusal.code.${err.code}`) ? t(`refusal.code.${err.code}`) : err.message, "refused");
    }
  }

  /** A player goes to the new table with the token he had there too. */
  follow(newId) {
    this.keepSeat(newId);
    location.href = `/table/${encodeURIComponent(newId)}`;
  }

  /** The player's seat (or place in the queue) at the new table is the one he had, same token. */
  keepSeat(newId) {
    const { page } = this;
    const name = page.me ?? (page.view?.players ?? page.players())[page.seat] ?? "";
    saveSeat(newId, page.seat, page.token, name);
  }

  /** This page is someone the new table takes along: a seated player, or a waiting person. */
  get member() {
    const { page } = this;
    return page.seat !== null || Boolean(page.waiting && page.token);
  }

  /** Redraw from the table object (on every `table` message and once a second). */
  draw() {
    const { page } = this;
    const table = page.table;
    const seat = page.seat;
    // The match's end comes as an update (`match_over`) before any new table message.
    const finished = table?.status === "finished" || Boolean(page.view?.match_over);
    const text = $("rematch-text");
    const show = (offer, accept) => {
      $("rematch-btn").hidden = !offer;
      $("rematch-accept").hidden = !accept;
      $("rematch-decline").hidden = !accept;
    };
    if (!finished || !table) return show(false, false);
    const rotation = Boolean(table.rotation);
    const newId = table.rematch;
    if (this.seenOpen === undefined) this.seenOpen = newId;
    if (newId) {
      show(false, false);
      // Both players were asked: whoever was waiting goes along as soon as the table opens
      // (at a rotation table the people in the queue too).
      const member = this.member;
      if (member && !this.seenOpen) return this.follow(newId);
      if (member && !loadSeat(newId)) this.keepSeat(newId); // back later: in his place too
      let before = member ? t("rematch.started") : t("rematch.started_watch");
      if (member && rotation) before = t("rematch.session_started");
      this.link(text, before, newId, member ? t("rematch.go") : t("rematch.watch_it"));
      return;
    }
    const players = page.view?.players ?? page.players();
    const other = seat === null ? null : 1 - seat;
    const otherName = other === null ? "" : (players[other] ?? t("why.your_opponent"));
    const offer = table.rematch_offer;
    const lapsed = offer && this.serverNow() >= offer.expires_at_ms;
    const declined = table.rematch_declined;
    const againstBot = other !== null && table.seats?.[other]?.bot;
    let offerWords = againstBot ? t("rematch.rematch") : t("rematch.offer");
    if (rotation) offerWords = t("rematch.offer_session");
    $("rematch-btn").textContent = offerWords;
    if (seat === null) {
      // A spectator hears of an offer; there is no seat for him in a rematch. A person waiting
      // at a rotation table is told he would come along, in the queue.
      const who = offer ? (players[offer.seat] ?? t("rematch.a_player")) : null;
      if (offer && !lapsed) {
        text.textContent = rotation ? t("rematch.offers_session", { who }) : t("rematch.offers", { who });
      } else {
        const waiting = rotation && this.member;
        text.textContent = waiting ? t("rematch.session_wait", { a: players[0], b: players[1] }) : "";
      }
      return show(false, false);
    }
    if (offer && !lapsed && offer.seat === seat) {
      const away = table.presence?.[other]?.connected === false;
      text.textContent = away
        ? t("rematch.offered_left", { who: otherName })
        : t("rematch.offered_waiting", { who: otherName });
      return show(false, false);
    }
    if (offer && !lapsed) {
      const words = rotation ? "rematch.offers_session" : "rematch.offers_same_seats";
      text.textContent = t(words, { who: otherName });
      return show(false, true);
    }
    if (offer && lapsed) {
      text.textContent =
        offer.seat === seat
          ? t("rematch.no_answer", { who: otherName })
          : t("rematch.lapsed", { who: otherName });
    } else if (declined) {
      text.textContent =
        declined.seat === seat ? t("rematch.you_declined") : t("rematch.declined", { who: otherName });
    } else {
      text.textContent = "";
    }
    show(true, false);
  }

  link(el, before, newId, words) {
    if (el.querySelector("a")?.getAttribute("href") === `/table/${encodeURIComponent(newId)}`) return;
    el.textContent = before;
    const a = document.createElement("a");
    a.href = `/table/${encodeURIComponent(newId)}`;
    a.textContent = words;
    a.dataset.testid = "rematch-link";
    el.append(a);
  }
}
