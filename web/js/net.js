// Talking to the server: JSON over HTTP and one Socket.IO connection (docs/protocol.md).

import { io } from "../vendor/socket.io-client-4.8.4/socket.io.esm.min.js";

/** An HTTP error with the server's structured reason ({code, message, details}). */
export class RequestError extends Error {
  constructor(status, body) {
    super(body?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = body?.code ?? "http";
    this.details = body?.details ?? null;
    this.rule = body?.rule ?? null; // a refused name's rule (docs/protocol.md § Names)
    this.reason = body?.reason ?? null; // a refusal's stable code, said by `reasonWords`
    this.params = body?.params ?? null;
  }
}

// A read the server asks us to repeat later (docs/protocol.md § Fair use): a heavy job of this
// address's of the same kind is under way already (429 `rate_limited`, e.g. a table page still
// loading its replay while another tab opens it), or every read worker is busy (503 `busy`).
// The read waits its turn, as the server's `Retry-After` says, a bounded number of times.
const RETRIED = new Set(["rate_limited", "busy"]);
const MAX_TRIES = 8;
const MAX_WAIT_S = 10;

function retryAfterMs(res, body) {
  const said = Number(res.headers.get("Retry-After") ?? body?.retry_after_s ?? 2);
  const seconds = Number.isFinite(said) && said > 0 ? Math.min(said, MAX_WAIT_S) : 2;
  return seconds * 1000;
}

export async function getJSON(url) {
  for (let tries = 1; ; tries++) {
    const res = await fetch(url, { headers: { Accept: "application/json" } });
    const body = await res.json().catch(() => null);
    if (res.ok) return body;
    if (tries >= MAX_TRIES || !RETRIED.has(body?.code)) throw new RequestError(res.status, body);
    await new Promise((resolve) => setTimeout(resolve, retryAfterMs(res, body)));
  }
}

export async function postJSON(url, data) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify(data),
  });
  const body = await res.json().catch(() => null);
  if (!res.ok) throw new RequestError(res.status, body);
  return body;
}

/** The version of docs/protocol.md this page speaks (§ Versions): sent in the handshake. */
export const PROTOCOL = 2;

/** A Socket.IO connection to this page's server; it reconnects by itself. `onOld(message)` is
 *  called when the server serves this page's protocol no more (a page cached from before an
 *  upgrade): it refuses the handshake, and the socket stays down until the page is reloaded. */
export function openSocket(onOld = () => {}) {
  const socket = io({
    reconnectionDelay: 300,
    reconnectionDelayMax: 3000,
    auth: { protocol: PROTOCOL },
  });
  socket.on("connect_error", (err) => {
    if (err?.data?.code === "unsupported_protocol") onOld(err.data.message);
  });
  return socket;
}

/** Emit with an acknowledgement, as a promise (rejects after `timeoutMs` without an answer). */
export function emitAck(socket, event, data, timeoutMs = 8000) {
  return socket.timeout(timeoutMs).emitWithAck(event, data);
}

/** A fresh command id: 16 random hex digits after "c-". */
export function commandId() {
  const bytes = new Uint8Array(8);
  crypto.getRandomValues(bytes);
  return "c-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// Seat tokens live in localStorage, keyed by match, so a reload or a sleep can sit back down.
const SEAT_KEY = (matchId) => `crapette:seat:${matchId}`;

export function saveSeat(matchId, seat, token, name) {
  localStorage.setItem(SEAT_KEY(matchId), JSON.stringify({ seat, seat_token: token, name }));
}

export function forgetSeat(matchId) {
  localStorage.removeItem(SEAT_KEY(matchId));
}

export function loadSeat(matchId) {
  try {
    return JSON.parse(localStorage.getItem(SEAT_KEY(matchId)) ?? "null");
  } catch {
    return null;
  }
}

export function savedName() {
  return localStorage.getItem("crapette:name") ?? "";
}

export function saveName(name) {
  localStorage.setItem("crapette:name", name);
}
