// Pass and play (docs/web.md): several people at one device. The device's one connection
// holds every person's seat and is sent one seat's view at a time: none while the device is
// handed over; the seat to play once its player taps (a `show`). Its hand is on screen only
// during its own turn; when the turn moves on, the page asks for no seat's view at once, and a
// hand-over screen names the next person. Methods of TableScreen (table.js).
import { api } from "./api.js";
import { h, navigate } from "./dom.js";
import { t } from "./i18n.js";

const KEY = "kseri.passplay";

function allTables() {
  try {
    return JSON.parse(localStorage.getItem(KEY)) || {};
  } catch {
    return {};
  }
}

/** Remember a pass-and-play table's tokens (seat → token) on this device. */
export function holdPassPlay(tableId, tokens) {
  const tables = allTables();
  tables[tableId] = { tokens, since: Date.now() };
  const ids = Object.keys(tables).sort((a, b) => tables[b].since - tables[a].since);
  for (const old of ids.slice(20)) delete tables[old];
  localStorage.setItem(KEY, JSON.stringify(tables));
}

/** A pass-and-play table's tokens held here ({seat: token}), or null. */
export function passPlayTokens(tableId) {
  const held = allTables()[tableId];
  return held ? held.tokens : null;
}

/** The hand-over screen (online and offline, passplay-offline.js): no hand, the next person's
 *  name, and the tap that shows their hand (`onShow`; disabled while `asked`). */
export function handOver(seat, name, asked, onShow) {
  return h("section", { class: "handover panel", id: "handover", "data-seat": seat, "aria-labelledby": "handover-title" },
    h("h2", { id: "handover-title" }, t("passplay.handOver", { name })),
    h("p", {}, t("passplay.handOverHelp", { name })),
    h("button", { type: "button", class: "primary big", id: "handover-show", disabled: asked, onclick: onShow },
      t("passplay.show", { name })));
}

export const passPlayMethods = {
  /** The held seat whose play is due now, or null (a bot's turn, between rounds, over). */
  personDue() {
    const view = this.view;
    if (!view || view.phase !== "playing" || view.turn === null || this.table.status !== "playing") return null;
    return this.passPlay.held.includes(view.turn) ? view.turn : null;
  },

  /** After each state: hide the hand shown as soon as its turn is over. */
  passPlayStep() {
    const due = this.personDue();
    if (this.passPlay.asked !== null && this.passPlay.asked !== due) this.showSeat(null);
  },

  /** Ask for a seat's view (the hand-over's tap) or for none. */
  showSeat(seat) {
    if (this.connection.send({ type: "show", seat })) this.passPlay.asked = seat;
  },

  /** After the match: the rematch, each person in the seat they had (one rematch per seat
   *  held, each giving that seat's token at the new table), held by this device as before. */
  async passPlayRematch() {
    const tokens = {};
    let table = null;
    try {
      for (const token of Object.values(passPlayTokens(this.tableId))) {
        const created = await api("POST", `/api/tables/${this.tableId}/rematch`, undefined, token);
        tokens[created.seat] = created.token;
        table = created.table;
      }
    } catch (error) {
      this.notice = t("error.rematch", { message: error.message });
      this.renderNotice();
      return;
    }
    holdPassPlay(table.id, tokens);
    navigate(`/t/${table.id}`);
  },

  /** The bottom of the table at pass and play: the hand of the seat to play, once shown; the
   *  hand-over screen while the device goes to the next person; else who is playing. */
  renderPassPlay() {
    const due = this.personDue();
    if (due !== null && this.seat === due && this.view.seat === due) return this.renderMe();
    if (due !== null) return handOver(due, this.nameOf(due), this.passPlay.asked === due, () => this.showSeat(due));
    const turn = this.view.phase === "playing" ? this.view.turn : null;
    return h("p", { class: "spectating", id: "passplay-waiting" },
      turn !== null ? t("passplay.waiting", { name: this.nameOf(turn) }) : "\u00a0");
  },
};
