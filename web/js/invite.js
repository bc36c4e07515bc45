// The invite link of a table: the URL to type or copy, and a QR code for a phone on the same LAN.

import qrcode from "../vendor/qrcode-generator-2.0.4/qrcode.mjs";
import { t } from "./i18n.js";

/** The QR code of `text` as an SVG string (crisp at any size). */
export function qrSvg(text) {
  const qr = qrcode(0, "M"); // type 0: the smallest version that holds the text
  qr.addData(text);
  qr.make();
  return qr.createSvgTag({ cellSize: 4, margin: 8, alt: t("invite.qr_alt", { url: text }) });
}

async function copy(text, input) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No Clipboard API on a plain-http LAN address: fall back to selecting the text.
    input.select();
    return document.execCommand?.("copy") ?? false;
  }
}

/**
 * Draw the invite link, a Copy button and the QR code into `container`. No link to the table
 * itself: on the waiting page it would only reload the page; the lobby adds its own "sit down".
 */
export function renderInvite(container, url, note = "") {
  container.innerHTML = "";
  container.classList.add("invite");
  const p = document.createElement("p");
  p.textContent = note || t("invite.note");
  const row = document.createElement("div");
  row.style.display = "flex";
  row.style.gap = "6px";
  row.style.width = "100%";
  const input = document.createElement("input");
  input.readOnly = true;
  input.value = url;
  input.dataset.testid = "invite-url";
  input.setAttribute("aria-label", t("invite.link"));
  const button = document.createElement("button");
  button.textContent = t("invite.copy");
  button.addEventListener("click", async () => {
    button.textContent = (await copy(url, input)) ? t("invite.copied") : t("invite.select_copy");
    setTimeout(() => (button.textContent = t("invite.copy")), 2000);
  });
  row.append(input, button);
  const qr = document.createElement("div");
  qr.className = "qr";
  qr.innerHTML = qrSvg(url);
  const svg = qr.querySelector("svg");
  if (svg) {
    svg.setAttribute("width", "100%");
    svg.setAttribute("height", "100%");
  }
  container.append(p, row, qr);
}

/** The best address for others on the LAN: the server's first non-loopback URL, else ours. */
export function lanBase(serverInfo) {
  const urls = serverInfo?.urls ?? [];
  const lan = urls.find((u) => !/\/\/(127\.|localhost|\[::1\])/.test(u));
  return (lan ?? `${location.origin}/`).replace(/\/$/, "");
}
