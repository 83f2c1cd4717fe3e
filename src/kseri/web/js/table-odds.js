// Live win odds at a table (GET /api/tables/ID/odds, docs/analysis.md): a player in a casual game
// against the computer, or a spectator of an unrated table, may turn the bar on (kept in this
// browser); it is never offered in a rated game nor to a player facing another person. The odds
// are asked once for each new state (a player's on its turn, a spectator's at every play) and
// drawn as the replay's bar: the side to play's chance to win the round, its interval, and the match.
// Methods of TableScreen (table.js).
import { api } from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";

const ODDS_KEY = "kseri.liveOdds";

export const oddsMethods = {
  /** Whether this screen may show live odds: never rated, never a player facing a person. */
  oddsAllowed() {
    const table = this.table;
    if (!table || this.passPlay || !this.view || (this.ratings && this.ratings.rated)) return false;
    if (this.seat === null) return !table.rated;
    return table.casual && table.seats.every((s, index) => index === this.seat || s.kind === "bot");
  },

  oddsOn() {
    return localStorage.getItem(ODDS_KEY) === "1";
  },

  toggleOdds() {
    localStorage.setItem(ODDS_KEY, this.oddsOn() ? "0" : "1");
    this.render();
  },

  /** Ask for the odds of the state on screen, once (from render). */
  watchOdds() {
    const view = this.view;
    if (!this.oddsAllowed() || !this.oddsOn() || view.phase !== "playing" || view.turn === null) return;
    if (this.seat !== null && view.turn !== this.seat) return;
    if (this.oddsAsked === this.seq) return;
    const seq = this.oddsAsked = this.seq;
    api("GET", `/api/tables/${encodeURIComponent(this.tableId)}/odds`, undefined, this.seat !== null ? this.token : undefined)
      .then((odds) => { if (odds.seq >= (this.liveOdds && this.liveOdds.seq || 0)) this.liveOdds = odds; },
        (error) => { if (this.oddsAsked === seq) this.liveOdds = { error: error.message, code: error.code }; })
      .then(() => { if (this.connection) this.render(); });
  },

  renderOdds() {
    if (!this.oddsAllowed()) return null;
    this.watchOdds();
    const on = this.oddsOn();
    const toggle = h("button", { type: "button", class: "small", id: "live-odds-toggle", "aria-pressed": String(on),
      onclick: () => this.toggleOdds() }, t(on ? "odds.hide" : "odds.show"));
    if (!on) return h("section", { class: "live-odds", "aria-label": t("odds.title") }, toggle);
    const known = this.liveOdds;
    const percent = (x) => Math.round(100 * x);
    let body;
    if (known && known.error && known.code !== "throttled" && known.code !== "not-playing") {
      body = h("p", { class: "error", id: "odds-error" }, known.error);
    } else if (!known || known.error) {
      body = h("p", { class: "muted", role: "status" }, t(this.seat === null ? "odds.loading" : "odds.yourTurn"));
    } else {
      const [chance, low, high] = known.round_odds;
      const [match] = known.match_odds;
      const name = this.nameOf(known.seat);
      body = h("div", { class: "odds-line" },
        h("div", { class: "odds-meter", role: "img", "aria-label": t("odds.round", { name, chance: percent(chance) }) },
          h("span", { class: "odds-fill", style: `width: ${percent(chance)}%` }),
          h("span", { class: "odds-interval", style: `left: ${percent(low)}%; width: ${percent(high) - percent(low)}%` })),
        h("p", { id: "odds-text", "data-seq": known.seq }, t("odds.line", { name, chance: percent(chance), low: percent(low), high: percent(high), match: percent(match) })));
    }
    return h("section", { class: "live-odds odds", id: "odds-bar", "aria-label": t("odds.title") }, toggle, body,
      h("p", { class: "muted odds-note" }, t(this.seat === null ? "odds.spectatorNote" : "odds.playerNote")));
  },
};
