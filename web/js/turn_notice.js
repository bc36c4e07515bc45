// "Your turn", said outside the board too: in the tab's title (seen from another tab) and, when
// the player turned it on in Settings, with a chime.

import { t } from "./i18n.js";
import { chime } from "./prefs.js";

export class TurnNotice {
  constructor(title = document.title) {
    this.title = title; // the page's own title, shown while it is not this player's turn
    this.mine = false;
  }

  /** Tell whether it is now this player's turn; the title changes and the chime sounds once. */
  update(mine) {
    if (mine === this.mine) return;
    this.mine = mine;
    document.title = mine ? t("notice.your_turn", { title: this.title }) : this.title;
    if (mine) chime();
  }
}
