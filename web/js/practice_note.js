// The table page of a practice game (played on from a finished match: playon.js) says so.

import { showPracticeNote } from "./playon.js";

const matchId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() ?? "");
showPracticeNote(matchId, document.getElementById("game-no"));
