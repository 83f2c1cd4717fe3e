// The master's review of a finished game in the replay viewer (docs/analysis.md): accuracy per
// player, for each play what it cost ("you played 7♠; Q♦ was worth 3.2 more") or its verdict in
// the game's own words ("missed a kseri"), and the verdicts marked on the timeline.
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
    this.oddsOn = false;
    this.odds = new Map(); // "round:play" -> the server's odds, or {error}
  }

  /** The win-odds bar (a finished casual game's replay): a toggle, then the chance that the
   * side about to play wins the round and the match, with the intervals. */
  oddsBar(round, step, total, name) {
    if (!this.tableId) return null;
    const toggle = h("button", { type: "button", id: "odds-toggle", "aria-pressed": String(this.oddsOn),
      onclick: () => { this.oddsOn = !this.oddsOn; this.redraw(); } }, t(this.oddsOn ? "odds.hide" : "odds.show"));
    if (!this.oddsOn) return h("div", { class: "odds" }, toggle);
    const key = `${round}:${step}`;
    const known = this.odds.get(key);
    if (known === undefined && step < total) {
      this.odds.set(key, null);
      api("GET", `/api/tables/${encodeURIComponent(this.tableId)}/odds?round=${round}&play=${step}`)
        .then((odds) => this.odds.set(key, odds), (error) => this.odds.set(key, { error: error.message }))
        .then(() => this.redraw());
    }
    const percent = (x) => Math.round(100 * x);
    let body;
    if (step >= total) body = h("p", { class: "muted" }, t("odds.end"));
    else if (!known) body = h("p", { class: "muted", role: "status" }, t("odds.loading"));
    else if (known.error) body = h("p", { class: "error", role: "alert", id: "odds-error" }, known.error);
    else {
      const [chance, low, high] = known.round_odds;
      const [match] = known.match_odds;
      body = h("div", { class: "odds-line" },
        h("div", { class: "odds-meter", role: "img", "aria-label": t("odds.round", { name: name(known.seat), chance: percent(chance) }) },
          h("span", { class: "odds-fill", style: `width: ${percent(chance)}%` }),
          h("span", { class: "odds-interval", style: `left: ${percent(low)}%; width: ${percent(high) - percent(low)}%` })),
        h("p", { id: "odds-text" }, t("odds.line", { name: name(known.seat), chance: percent(chance), low: percent(low), high: percent(high), match: percent(match) })));
    }
    return h("div", { class: "odds", id: "odds-bar" }, toggle, body);
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
    const mistake = review.loss >= NOTABLE || review.verdict;
    return h("p", { class: `analysis-note${mistake ? " mistake" : ""}`, id: "analysis-note", "data-verdict": review.verdict && review.verdict.kind },
      text, review.verdict && h("span", { class: "verdict" }, " ", verdictText(review.verdict)));
  }

  /** The steps (1 = after the first play) of a round whose play has a verdict. */
  verdictSteps(round) {
    if (this.state !== "done") return [];
    return this.analysis.plays.filter((play) => play.round === round && play.verdict).map((play) => play.play + 1);
  }

  /** The verdicts on the timeline: a mark per judged play (jumping to it), and "next verdict". */
  timeline(round, step, total, go) {
    const steps = this.verdictSteps(round);
    if (this.state !== "done") return null;
    const next = steps.find((s) => s > step);
    return h("div", { class: "verdict-timeline", id: "verdict-timeline" },
      h("ol", { class: "verdict-marks", "aria-label": t("review.timeline") }, steps.map((s) => {
        const review = this.byPlay.get(`${round}:${s - 1}`);
        return h("li", { style: `left: ${(100 * s) / Math.max(1, total)}%` },
          h("button", { type: "button", class: `verdict-mark${s === step ? " current" : ""}`, "data-step": s,
            title: verdictText(review.verdict), "aria-label": `${t("replay.counter", { step: s, total })}: ${verdictText(review.verdict)}`,
            onclick: () => go(s) }));
      })),
      h("button", { type: "button", id: "next-verdict", disabled: next === undefined, onclick: () => go(next) },
        steps.length ? t("review.nextVerdict") : t("review.noVerdict")));
  }
}

/** A verdict (analysis/verdicts.py's JSON) as a sentence in the page's language. */
export function verdictText(verdict) {
  const fields = { card: cardName(verdict.card), better: cardName(verdict.better), worth: verdict.worth, loss: verdict.loss.toFixed(1) };
  const reason = verdict.reason ? ` ${t(`reason.${verdict.reason}`, fields)}` : "";
  return t(`verdict.${verdict.kind}`, fields) + reason;
}
