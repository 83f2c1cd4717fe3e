// A rated table's ratings (GET /api/tables/ID/ratings, docs/players.md): each player's rating
// beside their name while the match is played, and on the end panel each one's change and new
// rating (asked again each second while the server is still rating the match). A bot's seat
// shows its level's rating in the table's family instead (GET /api/ratings/bots), "about 1400".
// Methods of TableScreen (table.js).
import { api } from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { levelAbout } from "./lobby.js";

const POLL_MS = 1000;
const POLL_TRIES = 30;

/** A bot seat's level's rating in a family ("about 1400"), under its name in its box; null
 * where the level is not measured there. The online and offline tables both show it. */
export function botRatingBadge(ratings, family, level, seat) {
  const about = ratings && levelAbout(ratings, family, level);
  return about && h("span", { class: "bot-rating", "data-seat": seat, title: t("rating.botTitle") }, about);
}

export const ratingMethods = {
  /** Ask for the ratings once while playing and once the match is over (from render). */
  watchRatings() {
    if (this.botRatings === undefined) this.fetchBotRatings();
    if (!this.table || this.table.status === "waiting" || (this.ratings && !this.ratings.rated)) return;
    const key = this.table.status === "finished" ? "end" : "live";
    if (this.ratingsKey === key) return;
    this.ratingsKey = key;
    this.fetchRatings(key);
  },

  async fetchRatings(key) {
    for (let tries = 0; tries < POLL_TRIES && this.ratingsKey === key; tries++) {
      try {
        this.ratings = await api("GET", `/api/tables/${encodeURIComponent(this.tableId)}/ratings`);
      } catch {
        return; // the table's page works without them
      }
      if (this.connection) this.render();
      const settled = !this.ratings.rated || key === "live" || ["rated", "unrated"].includes(this.ratings.status);
      if (settled) return;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  },

  /** Each bot level's rating per family, once a page (the bots' seats show theirs). */
  async fetchBotRatings() {
    this.botRatings = null;
    try {
      this.botRatings = (await api("GET", "/api/ratings/bots")).families;
    } catch {
      return; // the table works without them
    }
    if (this.connection) this.render();
  },

  /** A bot seat's level's rating in the table's family ("about 1400"), under its name in its
   * box; null for a person's seat or a level not measured there. */
  botRatingTag(seat) {
    const info = this.table && this.table.seats[seat];
    if (!info || info.kind !== "bot" || !this.table.rules) return null;
    return botRatingBadge(this.botRatings, this.table.rules.name, info.level, seat);
  },

  /** The rating shown beside a seat's name at a rated table (before this match), or null. */
  ratingTag(seat) {
    const entry = this.ratings && this.ratings.rated && this.ratings.seats[seat];
    if (!entry || !entry.before) return null;
    return h("span", { class: "seat-rating", "data-seat": seat, title: t("rating.title") }, entry.before.shown);
  },

  /** The end panel's ratings: each player's change and new rating, or why there is none. */
  renderRatingChange() {
    const ratings = this.ratings;
    if (!ratings || !ratings.rated) return null;
    if (ratings.status === "unrated") {
      return h("p", { class: "rating-change muted", id: "rating-change" }, t(`rating.unrated.${ratings.reason}`));
    }
    if (ratings.status !== "rated") return h("p", { class: "rating-change muted", id: "rating-change", role: "status" }, t("rating.updating"));
    const order = ratings.seats.filter((entry) => entry.after)
      .sort((a, b) => (b.seat === this.seat) - (a.seat === this.seat) || a.seat - b.seat);
    return h("ul", { class: "rating-change", id: "rating-change", "aria-label": t("rating.title") }, order.map((entry) => {
      const sign = entry.change > 0 ? "up" : entry.change < 0 ? "down" : "same";
      const change = entry.change > 0 ? `+${entry.change}` : entry.change < 0 ? `−${-entry.change}` : "±0";
      return h("li", { class: `${sign}${entry.seat === this.seat ? " mine" : ""}`, "data-seat": entry.seat },
        h("span", { class: "rating-who" }, entry.seat === this.seat ? t("rating.yours") : entry.username), " ",
        h("span", { class: "rating-before" }, entry.before.shown), " → ",
        h("strong", { class: "rating-after" }, entry.after.shown), " ",
        h("span", { class: `rating-delta ${sign}` }, `(${change})`));
    }));
  },
};
