// The master's review of a finished game in the replay viewer (docs/analysis.md): accuracy per
// player, and for each play what it cost ("you played 7♠; Q♦ was worth 3.2 more").
import { api } from "./api.js";
import { cardName } from "./cards.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";

const NOTABLE = 0.5; // points lost below this count as a good play

export class AnalysisPanel {
  /** @param {string|null} tableId the finished table (null: a record from a file, not analysed)
   *  @param {() => void} redraw called when the analysis arrives */
  constructor(tableId, redraw) {
    this.tableId = tableId;
    this.redraw = redraw;
    this.analysis = null;
    this.byPlay = new Map();
    this.state = "idle"; // idle, running, done, failed
    this.error = "";
  }

  async load() {
    this.state = "running";
    this.redraw();
    try {
      this.analysis = await api("GET", `/api/tables/${encodeURIComponent(this.tableId)}/analysis`);
      for (const play of this.analysis.plays) this.byPlay.set(`${play.round}:${play.play}`, play);
      this.state = "done";
    } catch (error) {
      this.state = "failed";
      this.error = error.message;
    }
    this.redraw();
  }

  /** The summary: a button to ask for the analysis, or each player's accuracy. */
  summary(name) {
    if (!this.tableId) return null;
    if (this.state === "idle") {
      return h("p", { class: "analysis" }, h("button", { type: "button", id: "analyse", onclick: () => this.load() }, t("analysis.run")));
    }
    if (this.state === "running") return h("p", { class: "analysis muted", role: "status" }, t("analysis.running"));
    if (this.state === "failed") return h("p", { class: "analysis error", role: "alert" }, this.error);
    return h("ul", { class: "analysis accuracy", id: "analysis-summary" }, this.analysis.players.map((player) =>
      h("li", {}, t("analysis.accuracy", { name: name(player.seat), accuracy: player.accuracy ?? "–", lost: player.total_loss.toFixed(1) }))));
  }

  /** What the master says of one play (round and play from 0), or null. */
  note(round, play, name) {
    const review = this.byPlay.get(`${round}:${play}`);
    if (!review) return null;
    const who = name(review.seat);
    const text = review.loss >= NOTABLE
      ? t("analysis.mistake", { name: who, card: cardName(review.card), best: cardName(review.best), loss: review.loss.toFixed(1) })
      : t("analysis.good", { name: who, card: cardName(review.card) });
    return h("p", { class: `analysis-note${review.loss >= NOTABLE ? " mistake" : ""}`, id: "analysis-note" }, text);
  }
}
