// The table page of a tournament's table links back to its tournament (standings, the next
// table): a table's match id is `<tournament id>-r<round>-t<table>` (docs/protocol.md §
// Tournaments), and the tournament says its name.

import { t } from "./i18n.js";
import { getJSON } from "./net.js";

const matchId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() ?? "");
const found = /^(.+)-r(\d+)-t(\d+)$/.exec(matchId);

async function link() {
  if (!found) return;
  const [, id, round, table] = found;
  const tournament = await getJSON(`/api/tournaments/${encodeURIComponent(id)}`).catch(() => null);
  if (!tournament || !tournament.rounds.some((r) => r.tables.some((x) => x.match_id === matchId))) return;
  const a = document.createElement("a");
  a.href = `/tournament/${encodeURIComponent(id)}`;
  a.dataset.testid = "tournament-link";
  a.textContent = t("tournament.back", { name: tournament.name, round, table });
  document.getElementById("replay-link")?.before(a);
}

link();
