// The master's review of a finished game in the replay viewer (docs/analysis.md): its progress
// while it runs, accuracy per player with the units explained, the costliest mistakes (each a
// link to its play), "next mistake", a graph of the points each player lost over the game, at
// each play what it cost ("you played 7♠; Q♦ was worth 3.2 more points on average") or its
// verdict in the game's own words ("missed a kseri"), the verdicts marked on the timeline, and
// the win-odds bar.
import { api } from "./api.js";
import { cardName } from "./cards.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";

const NOTABLE = 0.5; // points lost below this count as a good play
const PROGRESS_MS = 500;
const SVG = "http://www.w3.org/2000/svg";

function svg(name, attributes = {}, text = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== null) node.textContent = text;
  return node;
}

export class AnalysisPanel {
  /** @param {string|null} tableId the finished table (null: a record from a file, not analysed)
   *  @param {() => void} redraw called when the analysis or its progress arrives
   *  @param {(round: number, play: number) => void} show moves the replay to a play */
  constructor(tableId, redraw, show) {
    this.tableId = tableId;
    this.redraw = redraw;
    this.show = show;
    this.analysis = null;
    this.byPlay = new Map();
    this.state = "idle"; // idle, running, done, failed
    this.progress = null; // {status, reviewed, plays} while running
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
    if (this.state === "running" || this.state === "done") return;
    this.state = "running";
    this.redraw();
    const path = `/api/tables/${encodeURIComponent(this.tableId)}/analysis`;
    const watch = setInterval(async () => {
      try {
        const progress = await api("GET", `${path}/progress`);
        if (this.state === "running") {
          this.progress = progress;
          this.redraw();
        }
      } catch {
        // shown again on the next tick
      }
    }, PROGRESS_MS);
    try {
      this.analysis = await api("GET", path);
      for (const play of this.analysis.plays) this.byPlay.set(`${play.round}:${play.play}`, play);
      this.state = "done";
    } catch (error) {
      this.state = "failed";
      this.error = error.message;
    }
    clearInterval(watch);
    this.redraw();
  }

  /** The plays that lost points, in the game's order. */
  mistakes() {
    return this.analysis ? this.analysis.plays.filter((play) => play.loss >= NOTABLE) : [];
  }

  /** The first mistake after the play shown (round, play index; -1 before the first play). */
  nextMistake(round, play) {
    return this.mistakes().find((m) => m.round > round || (m.round === round && m.play > play)) || null;
  }

  /** The panel: a button to ask for the analysis, its progress, or the review itself. */
  panel(name, round, play) {
    if (!this.tableId) return null;
    let body;
    if (this.state === "idle") {
      body = h("button", { type: "button", class: "primary", id: "analyse", onclick: () => this.load() }, t("analysis.run"));
    } else if (this.state === "running") {
      const p = this.progress;
      const running = p && p.status === "running" && p.plays;
      body = h("div", { class: "analysis-running", role: "status" },
        h("progress", { id: "analysis-progress", max: running ? p.plays : null, value: running ? p.reviewed : null }),
        h("p", { id: "analysis-progress-text" }, running ? t("analysis.progress", { reviewed: p.reviewed, plays: p.plays })
          : p && p.status === "queued" ? t("analysis.queued") : t("analysis.running")),
        h("p", { class: "muted small" }, t("analysis.wait")));
    } else if (this.state === "failed") {
      body = h("p", { class: "error", role: "alert" }, this.error);
    } else {
      const next = this.nextMistake(round, play);
      body = [
        h("ul", { class: "accuracy", id: "analysis-summary" }, this.analysis.players.map((player) =>
          h("li", {}, t("analysis.accuracy", { name: name(player.seat), accuracy: player.accuracy ?? "–", lost: player.total_loss.toFixed(1) })))),
        h("details", { class: "analysis-units", id: "analysis-units" },
          h("summary", {}, t("analysis.unitsTitle")),
          h("p", {}, t("analysis.units")), h("p", {}, t("analysis.accuracyHelp"))),
        this.graph(name, round, play),
        h("div", { class: "row" },
          h("button", { type: "button", id: "next-mistake", disabled: !next, onclick: () => next && this.show(next.round, next.play) },
            t("analysis.nextMistake"))),
        h("h3", {}, t("analysis.mistakesTitle")),
        this.analysis.mistakes.length
          ? h("ol", { class: "mistake-list", id: "mistake-list" }, this.analysis.mistakes.map((m) => h("li", {},
            h("button", { type: "button", class: "link", onclick: () => this.show(m.round, m.play) },
              t("analysis.mistakeAt", { round: m.round + 1, play: m.play + 1 }), " ",
              t("analysis.mistake", { name: name(m.seat), card: cardName(m.card), best: cardName(m.best), loss: m.loss.toFixed(1) })))))
          : h("p", { class: "muted", id: "mistake-list" }, t("analysis.noMistakes")),
      ];
    }
    return h("section", { class: "analysis", id: "analysis", "aria-labelledby": "analysis-title" },
      h("h2", { id: "analysis-title" }, t("analysis.title")), body);
  }

  /** Each player's points lost so far over the game's plays, a line each, the play shown marked. */
  graph(name, round, play) {
    const plays = this.analysis.plays;
    if (!plays.length) return null;
    const seats = this.analysis.players.map((p) => p.seat);
    const width = 320;
    const height = 130;
    const left = 34;
    const bottom = 22;
    const running = new Map(seats.map((seat) => [seat, [[0, 0]]]));
    const sums = new Map(seats.map((seat) => [seat, 0]));
    plays.forEach((p, index) => {
      sums.set(p.seat, sums.get(p.seat) + p.loss);
      running.get(p.seat).push([index + 1, sums.get(p.seat)]);
    });
    const top = Math.max(1, ...sums.values());
    const x = (i) => left + (i * (width - left - 6)) / plays.length;
    const y = (v) => height - bottom - (v * (height - bottom - 8)) / top;
    const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "analysis-graph", id: "analysis-graph", role: "img",
      "aria-label": t("analysis.graphLabel", { names: seats.map((seat) => `${name(seat)} ${sums.get(seat).toFixed(1)}`).join(", ") }) });
    chart.append(
      svg("line", { x1: left, y1: y(0), x2: width - 6, y2: y(0), class: "axis" }),
      svg("line", { x1: left, y1: y(0), x2: left, y2: 8, class: "axis" }),
      svg("text", { x: left - 4, y: y(0), class: "tick", "text-anchor": "end" }, "0"),
      svg("text", { x: left - 4, y: y(top) + 8, class: "tick", "text-anchor": "end" }, top.toFixed(0)),
      svg("text", { x: (left + width) / 2, y: height - 4, class: "axis-label", "text-anchor": "middle" }, t("analysis.graphX")),
      svg("text", { x: 10, y: (height - bottom) / 2, class: "axis-label", "text-anchor": "middle", transform: `rotate(-90 10 ${(height - bottom) / 2})` }, t("analysis.graphY")));
    const shown = plays.findIndex((p) => p.round === round && p.play === play);
    if (shown >= 0) chart.append(svg("line", { x1: x(shown + 1), y1: 8, x2: x(shown + 1), y2: y(0), class: "now" }));
    seats.forEach((seat, index) => {
      chart.append(svg("polyline", { class: `seat-line seat-${index}`, points: running.get(seat).map(([i, v]) => `${x(i)},${y(v)}`).join(" ") }));
    });
    const legend = h("p", { class: "graph-legend" }, seats.map((seat, index) =>
      h("span", { class: `legend seat-${index}` }, h("span", { class: "swatch", "aria-hidden": "true" }), name(seat))));
    return h("figure", { class: "analysis-figure" }, chart, h("figcaption", {}, legend));
  }

  /** What the master says of one play (round and play from 0), or null. */
  note(round, play, name) {
    const review = this.byPlay.get(`${round}:${play}`);
    if (!review) return null;
    const who = name(review.seat);
    const costly = review.loss >= NOTABLE;
    const text = costly
      ? t("analysis.mistake", { name: who, card: cardName(review.card), best: cardName(review.best), loss: review.loss.toFixed(1) })
      : t("analysis.good", { name: who, card: cardName(review.card) });
    // "better_card" names the better card and its points, as the mistake's sentence did already
    const verdict = review.verdict && (costly && review.verdict.kind === "better_card"
      ? reasonText(review.verdict) : verdictText(review.verdict));
    return h("p", { class: `analysis-note${costly || review.verdict ? " mistake" : ""}`, id: "analysis-note", "data-verdict": review.verdict && review.verdict.kind },
      text, verdict && h("span", { class: "verdict" }, " ", verdict));
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

function verdictFields(verdict) {
  return { card: cardName(verdict.card), better: cardName(verdict.better), worth: verdict.worth, loss: verdict.loss.toFixed(1) };
}

/** Why a verdict's better card is better (its reason alone), or "" when it gives none. */
function reasonText(verdict) {
  return verdict.reason ? t(`reason.${verdict.reason}`, verdictFields(verdict)) : "";
}

/** A verdict (analysis/verdicts.py's JSON) as a sentence in the page's language. */
export function verdictText(verdict) {
  const reason = reasonText(verdict);
  return t(`verdict.${verdict.kind}`, verdictFields(verdict)) + (reason && ` ${reason}`);
}
