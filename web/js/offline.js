// The replay page opened from one file (docs/records.md § HTML): what the page asks the server
// for is in the file, embedded as JSON by the server (server/readmodels/share/html.py). This module runs
// before any other and answers those requests from there, so the page's own modules work
// unchanged and nothing is asked of any network. Anything else is a structured 404.

const embedded = JSON.parse(document.getElementById("crapette-offline").textContent);
// The engine's analysis of the match, when the file was made with one (web/js/judgements.js
// draws it as on the live page: its request is answered from here).
const analysisText = document.getElementById("crapette-analysis")?.textContent;
const analysis = analysisText ? JSON.parse(analysisText) : null;

const ROUTES = [
  [/\/static\/i18n\/([a-z]+)\.json$/, (m) => embedded.i18n?.[m[1]]],
  [/\/api\/matches\/[^/?]+\/replay$/, () => embedded.replay],
  [/\/api\/matches\/[^/?]+\/options\?seat=([01])$/, (m) => embedded.options?.[m[1]]],
  [/\/api\/matches\/[^/?]+\/analysis$/, () => analysis && { status: "done", analysis }],
  // A file has no server to analyse it: the analysis it holds, else none can be had.
  [/\/api\/matches\/[^/?]+\/analysis\/status$/, () => (analysis ? { status: "done", analysis } : { status: "unavailable" })],
];

function reply(status, body) {
  const headers = { "Content-Type": "application/json" };
  return new Response(JSON.stringify(body), { status, headers });
}

window.fetch = async (input) => {
  const url = String(input?.url ?? input);
  for (const [pattern, body] of ROUTES) {
    const m = pattern.exec(url);
    const data = m && body(m);
    if (data !== undefined && data !== null) return reply(200, data);
  }
  return reply(404, { code: "offline", message: `this replay file holds no ${url}` });
};

/** What the sharing controls need to know of the file (web/js/share.js). */
window.crapetteOffline = {
  matchId: embedded.match_id,
  sourceUrl: embedded.source_url,
  hasAnalysis: analysis !== null,
  record: () => document.getElementById("crapette-record").textContent,
};
