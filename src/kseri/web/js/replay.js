// The replay viewer: steps through a finished game's record (docs/records.md) play by play,
// with everyone's hands shown. The positions are rebuilt from the deals and plays with the
// capture rule (same rank, or a Jack when Jacks capture all); the scores are the record's.
import { AnalysisPanel } from "./analysis.js";
import { api } from "./api.js";
import { cardName, cardSvg } from "./cards.js";
import { announce, h } from "./dom.js";
import { t, tn } from "./i18n.js";

const AUTO_MS = 900;

/**
 * The positions of one round: before any play, then after each play.
 * Each position: {hands: [[card]], centre: [{card, face_down}], captured: [n per side], play, taken, kseri, batch}.
 */
export function roundPositions(record, roundIndex) {
  const rules = record.rules;
  const round = record.rounds[roundIndex];
  const sides = rules.partnerships ? rules.players / 2 : rules.players;
  let batch = 0;
  let hands = round.hands[0].map((hand) => [...hand]);
  let centre = round.centre.map((c) => ({ ...c }));
  const captured = Array(sides).fill(0);
  let lastCapturer = null;
  const snapshot = (extra) => ({ hands: hands.map((hand) => [...hand]), centre: [...centre], captured: [...captured], batch, ...extra });
  const positions = [snapshot({ play: null })];
  round.plays.forEach(([seat, card], index) => {
    const position = hands[seat].indexOf(card);
    if (position >= 0) hands[seat].splice(position, 1);
    const top = centre.length ? centre[centre.length - 1].card : null;
    const captures = top !== null && (card[0] === top[0] || (card[0] === "J" && rules.jacks_capture_all));
    let taken = 0;
    let kseri = false;
    const last = index === round.plays.length - 1;
    if (captures) {
      const kseriValue = card[0] === "J" && top[0] === "J" ? rules.jack_kseri : rules.kseri_value;
      kseri = centre.length === 1 && card[0] === top[0] && kseriValue !== null && (!last || rules.kseri_on_last_card);
      taken = centre.length + 1;
      captured[seat % sides] += taken;
      centre = [];
      lastCapturer = seat;
    } else {
      centre.push({ card, face_down: false });
    }
    if (hands.every((hand) => hand.length === 0) && batch + 1 < round.hands.length) {
      batch += 1;
      hands = round.hands[batch].map((hand) => [...hand]);
    }
    let swept = 0;
    if (last && centre.length && lastCapturer !== null) {
      swept = centre.length;
      captured[lastCapturer % sides] += swept;
      centre = [];
    }
    positions.push(snapshot({ play: { seat, card }, taken, kseri, swept, sweeper: lastCapturer }));
  });
  return positions;
}

const RECORD_FIELDS = ["points", "kseri", "captured", "breakdown", "last_capturer", "totals", "target", "winner", "complete", "resigned"];

/** One of `kseri verify`'s problems with a record (docs/records.md) in plain words: which part
 *  of the record does not follow from its plays or its deal, and where. */
export function explainProblem(problem) {
  const where = problem.match(/^round (\d+)(?:, play (\d+))?: /);
  const rest = where ? problem.slice(where[0].length) : problem;
  const at = where ? (where[2] ? t("replay.atPlay", { round: where[1], play: where[2] }) : t("replay.atRound", { round: where[1] })) : "";
  const field = rest.match(/^(\w+)(?: of side \d+)?: (?:recorded|missing)/);
  if (field && RECORD_FIELDS.includes(field[1])) return t("replay.tamperedField", { what: t(`replay.field.${field[1]}`), where: at });
  if (/deal seed|commitment|deal does not/.test(rest)) return t("replay.tamperedDeal", { where: at });
  if (where && where[2]) return t("replay.tamperedPlay", { where: at });
  return t("replay.damaged");
}

export class ReplayScreen {
  /** @param {string|null} tableId null: the record saved in sessionStorage (a file the user opened)
   *  @param {boolean} analyse ask for the master's analysis at once (/t/ID#analysis) */
  constructor(root, tableId, analyse = false) {
    this.root = root;
    this.tableId = tableId;
    this.record = null;
    this.round = 0;
    this.step = 0;
    this.positions = [];
    this.timer = null;
    this.keyHandler = (event) => this.onKey(event);
    this.analysis = new AnalysisPanel(tableId, () => this.render(), (round, play) => this.showPlay(round, play));
    this.analyseAtOnce = analyse && tableId !== null;
  }

  async start() {
    this.root.replaceChildren(h("p", { class: "loading" }, t("table.loading")));
    // The record is checked as `kseri verify` checks it (the server's /api/records/verify);
    // a broken or tampered one is refused with the same words, never shown half-replayed.
    let problems = [];
    try {
      if (this.tableId) {
        const id = encodeURIComponent(this.tableId); // a game played offline is kept apart from the tables
        this.record = await api("GET", this.tableId.startsWith("offline-") ? `/api/offline-games/${id}` : `/api/tables/${id}/record`);
      } else {
        const text = sessionStorage.getItem("kseri.replay");
        if (!text) throw new Error(t("replay.noRecord"));
        try {
          this.record = JSON.parse(text);
        } catch (error) {
          throw new Error(`not JSON: ${error.message}`);
        }
      }
      problems = (await api("POST", "/api/records/verify", this.record)).problems;
    } catch (error) {
      problems = [error.message];
    }
    if (problems.length) {
      this.record = null;
      const readable = [...new Set(problems.map(explainProblem))];
      this.root.replaceChildren(h("div", { class: "panel center replay-refused" },
        h("h1", {}, t("replay.title")),
        h("div", { class: "error", role: "alert", id: "replay-explained" },
          h("p", {}, t("replay.refusedPlain")), h("ul", {}, readable.map((line) => h("li", {}, line)))),
        h("details", { class: "replay-details" }, h("summary", {}, t("replay.technical")),
          h("p", { class: "error", id: "replay-error" }, t("replay.refused", { message: problems[0] })),
          problems.length > 1 && h("ul", { class: "problem-list" }, problems.slice(1).map((p) => h("li", {}, p)))),
        h("a", { class: "button", href: this.tableId ? `/t/${this.tableId}` : "/" }, t("replay.back"))));
      return;
    }
    document.addEventListener("keydown", this.keyHandler);
    this.setRound(0);
    if (this.analyseAtOnce) this.analysis.load();
  }

  /** Show a play (round and play index from 0), as "next mistake" and the mistakes list do. */
  showPlay(round, play) {
    if (round !== this.round) this.setRound(round);
    this.go(play + 1);
    const controls = this.root.querySelector(".replay-controls");
    const played = this.root.querySelector(".replay-centre .just-played");
    if (controls && played && (played.getBoundingClientRect().bottom > window.innerHeight || controls.getBoundingClientRect().top < 0)) {
      controls.scrollIntoView({ block: "start" }); // the board from the controls down: the play in sight
    }
  }

  destroy() {
    clearInterval(this.timer);
    document.removeEventListener("keydown", this.keyHandler);
  }

  refresh() {
    if (this.record) this.render();
  }

  setRound(index) {
    this.round = Math.max(0, Math.min(index, this.record.rounds.length - 1));
    this.positions = roundPositions(this.record, this.round);
    this.step = 0;
    this.render();
  }

  go(step) {
    this.step = Math.max(0, Math.min(step, this.positions.length - 1));
    this.render();
    announce(this.describe(this.positions[this.step]));
  }

  toggleAuto() {
    if (this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    } else {
      this.timer = setInterval(() => {
        if (this.step >= this.positions.length - 1) this.toggleAuto();
        else this.go(this.step + 1);
      }, AUTO_MS);
    }
    this.render();
  }

  onKey(event) {
    if (event.target && ["INPUT", "SELECT", "TEXTAREA"].includes(event.target.tagName)) return;
    if (event.key === "ArrowRight") this.go(this.step + 1);
    else if (event.key === "ArrowLeft") this.go(this.step - 1);
    else if (event.key === "Home") this.go(0);
    else if (event.key === "End") this.go(this.positions.length - 1);
    else return;
    event.preventDefault();
  }

  name(seat) {
    const names = this.record.names;
    return names && names[seat] ? names[seat] : t("seat.player", { n: seat + 1 });
  }

  sideName(side) {
    const rules = this.record.rules;
    const sides = rules.partnerships ? rules.players / 2 : rules.players;
    const seats = [];
    for (let seat = 0; seat < rules.players; seat++) if (seat % sides === side) seats.push(this.name(seat));
    return seats.join(" & ");
  }

  describe(position) {
    if (!position.play) return t("replay.start", { n: this.round + 1, dealer: this.name(this.record.rounds[this.round].dealer) });
    let text = t("event.played", { name: this.name(position.play.seat), card: cardName(position.play.card) });
    if (position.taken) text += " " + tn("event.took", position.taken);
    if (position.kseri) text += " " + t("replay.kseri");
    if (position.swept) text += " " + tn("replay.swept", position.swept, { name: this.name(position.sweeper) });
    return text;
  }

  render() {
    if (!this.record) return;
    const record = this.record;
    const round = record.rounds[this.round];
    const position = this.positions[this.step];
    const rules = record.rules;
    const sides = rules.partnerships ? rules.players / 2 : rules.players;
    const lastStep = this.positions.length - 1;
    const seats = Array.from({ length: rules.players }, (_, seat) => {
      const active = position.play && position.play.seat === seat;
      return h("li", { class: `replay-seat${active ? " active" : ""}`, "data-seat": seat },
        h("div", { class: "opponent-head" },
          h("span", { class: "opponent-name" }, this.name(seat)),
          round.dealer === seat && h("span", { class: "tag dealer" }, t("table.dealerShort"))),
        h("ul", { class: "replay-hand", "aria-label": t("replay.hand", { name: this.name(seat) }) },
          position.hands[seat].map((card) => h("li", { class: "small-card", "aria-label": cardName(card) }, cardSvg(card)))));
    });
    // the card just played stays in sight: on the pile, or beside it when it took the pile
    const played = position.play && (position.taken || position.swept) ? position.play.card : null;
    const onPile = position.play && !played ? position.centre.length - 1 : -1;
    const centre = position.centre.map((c, index) => h("li", {
      class: `small-card${c.face_down ? " face-down-card" : ""}${index === onPile ? " just-played" : ""}`,
      "aria-label": cardName(c.card) + (c.face_down ? `, ${t("replay.faceDown")}` : ""),
    }, cardSvg(c.card)));
    if (played) {
      centre.push(h("li", { class: "small-card just-played taken", "aria-label": t("replay.tookWith", { card: cardName(played) }) }, cardSvg(played)));
    } else if (!centre.length) centre.push(h("li", { class: "muted" }, t("centre.empty")));
    const centreSection = h("li", { class: "replay-centre", "aria-label": t("centre.title") },
      h("h2", {}, t("centre.title"), " ", h("span", { class: "badge" }, position.centre.length)),
      h("ul", { class: "replay-pile" }, centre));
    const half = Math.ceil(seats.length / 2);
    const done = this.step === lastStep && round.points;
    this.root.replaceChildren(h("div", { class: "replay" },
      h("div", { class: "replay-head" },
        h("h1", {}, t("replay.title")),
        h("label", { class: "field inline replay-rounds" }, h("span", {}, t("replay.round")),
          h("select", { id: "replay-round", onchange: (e) => this.setRound(Number(e.target.value)) },
            record.rounds.map((_, index) => h("option", { value: index, selected: index === this.round }, t("fair.round", { n: index + 1 }))))),
        h("a", { class: "button", href: this.tableId ? `/t/${this.tableId}` : "/" }, t("replay.back"))),
      h("div", { class: "replay-controls row" },
        h("button", { type: "button", id: "replay-first", onclick: () => this.go(0), "aria-label": t("replay.first") }, "|◀"),
        h("button", { type: "button", id: "replay-prev", onclick: () => this.go(this.step - 1), "aria-label": t("replay.prev") }, "◀"),
        h("button", { type: "button", id: "replay-auto", onclick: () => this.toggleAuto(), "aria-pressed": this.timer ? "true" : "false" }, this.timer ? t("replay.pause") : t("replay.play")),
        h("button", { type: "button", id: "replay-next", onclick: () => this.go(this.step + 1), "aria-label": t("replay.next") }, "▶"),
        h("button", { type: "button", id: "replay-last", onclick: () => this.go(lastStep), "aria-label": t("replay.last") }, "▶|"),
        h("input", { type: "range", id: "replay-step", min: 0, max: lastStep, value: this.step, "aria-label": t("replay.step"), oninput: (e) => this.go(Number(e.target.value)) }),
        h("span", { id: "replay-counter" }, t("replay.counter", { step: this.step, total: lastStep }))),
      this.analysis.timeline(this.round, this.step, lastStep, (step) => this.go(step)),
      this.analysis.oddsBar(this.round, this.step, lastStep, (seat) => this.name(seat)),
      h("div", { class: `replay-main${this.tableId ? " with-analysis" : ""}` },
        h("div", { class: "replay-board" },
          h("p", { class: "last-play", id: "replay-caption", "aria-live": "off" }, this.describe(position)),
          position.play && this.analysis.note(this.round, this.step - 1, (seat) => this.name(seat)),
          h("ul", { class: "replay-seats" }, seats.slice(0, half), centreSection, seats.slice(half)),
          h("p", { class: "replay-captured" }, Array.from({ length: sides }, (_, side) => `${this.sideName(side)}: ${tn("score.cardsCaptured", position.captured[side])}`).join(" · ")),
          done && h("p", { class: "replay-points", id: "replay-points" },
            t("replay.points"), " ", round.points.map((p, side) => `${this.sideName(side)} ${p}`).join(" · ")),
          h("p", { class: "muted keys-help" }, t("replay.keys"))),
        this.analysis.panel((seat) => this.name(seat), this.round, this.step - 1))));
  }
}
