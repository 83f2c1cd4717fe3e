// The memory trainer (docs/analysis.md, Memory trainer; server/api/trainer.py marks every answer):
// - the drill at /trainer: a position from a seeded bot game at a chosen moment (early, middle,
//   last batch); the cards played so far pass by one at a time, then are hidden, and four
//   questions ask what is still out; a running score for the visit, a signed-in player's best kept;
// - at a casual table (methods of TableScreen, table.js): "Quiz me" (or at a chosen batch) asks
//   the same questions about the seat's own view, and the counting aid ("Played cards") shows the
//   server's grid of what has gone and what is still out. Neither is ever offered at a rated table.
import { api, heldSeat } from "./api.js";
import { accountApi, currentAccount } from "./account.js";
import { cardName, cardShort, cardSvg, RANKS, SUITS } from "./cards.js";
import { announce, h, navigate } from "./dom.js";
import { t, tn } from "./i18n.js";
import { passPlayTokens } from "./passplay.js";
import { presetName } from "./rules-help.js";

const STYLE_ID = "trainer-style";
const MOMENTS = ["early", "middle", "last"];
const PRESETS = ["greek", "pisti", "classic", "partnership"];
const PASS_MS = 700; // how long each card played stays in view while they pass by
const QUIZ_BATCH_KEY = "kseri.quizBatch";

/** Load the trainer's style sheet once. */
function useTrainerStyle() {
  if (!document.getElementById(STYLE_ID)) {
    document.head.append(h("link", { rel: "stylesheet", href: "/static/css/trainer.css", id: STYLE_ID }));
  }
}

/** The rank as printed ("10" for the ten). */
function rankShort(rank) {
  return rank === "T" ? "10" : rank;
}

/** The batch being played (from 1), from the view alone, as analysis/memory.py's batch_of. */
export function batchOf(view) {
  const rules = view.rules;
  const dealt = 52 * (rules.decks || 1) - rules.centre_size - view.stock_size;
  return Math.max(1, Math.floor(dealt / (rules.players * rules.batch_size)));
}

/** The questions' form: each question's input, and `submit(answers)` on Check. `prefix` keeps
 * the ids apart (the drill's and the table's dialog). */
export function questionForm(questions, prefix, submit) {
  const inputs = [];
  const fields = questions.map((question) => {
    const id = `${prefix}-${question.id}`;
    if (question.kind === "count") {
      const input = h("input", { id, type: "number", min: 0, max: 16, inputmode: "numeric", class: "quiz-count" });
      inputs.push(() => (input.value.trim() === "" ? null : [question.id, Number(input.value)]));
      const label = question.id === "rank_out" ? t("trainer.q.rank_out", { rank: t(`rank.${question.rank}`) }) : t(`trainer.q.${question.id}`);
      return h("div", { class: "quiz-question", "data-question": question.id, "data-rank": question.rank },
        h("label", { for: id }, label), input);
    }
    const items = question.kind === "cards" ? question.choices : [...RANKS];
    const toggles = items.map((item, index) => h("button", {
      type: "button", class: `quiz-toggle${question.kind === "cards" ? " card-toggle" : ""}`, id: `${id}-${index}`,
      "data-item": item, "aria-pressed": "false",
      onclick: (event) => {
        const button = event.currentTarget;
        button.setAttribute("aria-pressed", button.getAttribute("aria-pressed") === "true" ? "false" : "true");
      },
    }, h("span", { "aria-hidden": "true" }, question.kind === "cards" ? cardShort(item) : rankShort(item)),
    h("span", { class: "visually-hidden" }, question.kind === "cards" ? cardName(item) : t(`rank.${item}`))));
    inputs.push(() => [question.id, toggles.filter((b) => b.getAttribute("aria-pressed") === "true").map((b) => b.dataset.item)]);
    return h("fieldset", { class: "quiz-question", "data-question": question.id },
      h("legend", {}, t(`trainer.q.${question.id}`)),
      h("div", { class: "quiz-toggles" }, toggles),
      question.kind === "ranks" && h("small", { class: "muted" }, t("trainer.noneHelp")));
  });
  const onSubmit = (event) => {
    event.preventDefault();
    submit(Object.fromEntries(inputs.map((read) => read()).filter(Boolean)));
  };
  return h("form", { class: "quiz-form", id: `${prefix}-form`, onsubmit: onSubmit }, fields,
    h("div", { class: "row" }, h("button", { type: "submit", class: "primary", id: `${prefix}-check` }, t("trainer.check"))));
}

function shown(question, value) {
  if (value === null || value === undefined) return t("trainer.blank");
  if (typeof value === "number") return String(value);
  if (!value.length) return t("trainer.none");
  return value.map((item) => (question.kind === "cards" ? cardShort(item) : rankShort(item))).join(" ");
}

/** The marks of answered questions: right, partly right or wrong, with the true answer. */
export function marksList(questions, result, id) {
  return h("ul", { class: "quiz-marks", id },
    result.marks.map((mark) => {
      const question = questions.find((q) => q.id === mark.id);
      const kind = mark.exact ? "exact" : mark.credit > 0 ? "partial" : "wrong";
      return h("li", { class: `quiz-mark ${kind}`, "data-question": mark.id, "data-credit": mark.credit },
        h("strong", {}, t(`trainer.mark.${kind}`, { credit: mark.credit })), " ",
        question.id === "rank_out" ? t("trainer.q.rank_out", { rank: t(`rank.${question.rank}`) }) : t(`trainer.q.${mark.id}`), " ",
        h("span", { class: "quiz-truth" }, t("trainer.truth", { answer: shown(question, mark.truth), yours: shown(question, mark.answer) })));
    }));
}

// -- the drill (/trainer) ------------------------------------------------------------------------

export class TrainerScreen {
  constructor(root) {
    this.root = root;
    const params = new URLSearchParams(location.search);
    this.moment = MOMENTS.includes(params.get("moment")) ? params.get("moment") : "middle";
    this.preset = PRESETS.includes(params.get("preset")) ? params.get("preset") : "greek";
    this.position = null;
    this.phase = "watch"; // watch (the cards pass by), ask, marked
    this.step = 0;
    this.result = null;
    this.error = null;
    this.score = { credit: 0, questions: 0, positions: 0 }; // this visit's running score
    this.standing = null; // a signed-in player's kept standing, per moment
    this.timer = null;
  }

  async start() {
    useTrainerStyle();
    if (currentAccount()) {
      try {
        this.standing = (await api("GET", "/api/trainer/standing")).moments;
      } catch {
        this.standing = null;
      }
    }
    await this.load();
  }

  destroy() {
    clearInterval(this.timer);
  }

  refresh() {
    this.render();
  }

  async load() {
    clearInterval(this.timer);
    this.result = null;
    this.error = null;
    try {
      this.position = await api("GET", `/api/trainer/position?moment=${this.moment}&preset=${this.preset}`);
    } catch (error) {
      this.position = null;
      this.error = error.message;
    }
    this.phase = "watch";
    this.step = 0;
    this.render();
    if (this.position) this.timer = setInterval(() => this.pass(), PASS_MS);
    const skip = this.root.querySelector("#trainer-skip");
    if (skip) skip.focus();
  }

  /** The next card played passes by; after the last, they are hidden and the questions come. */
  pass() {
    if (this.phase !== "watch") return;
    this.step += 1;
    if (this.step >= this.position.view.plays.length) this.ask();
    else this.render();
  }

  ask() {
    clearInterval(this.timer);
    this.phase = "ask";
    this.render();
    announce(t("trainer.hidden"));
    const first = this.root.querySelector(".quiz-form input, .quiz-form button");
    if (first) first.focus();
  }

  async answer(answers) {
    try {
      this.result = await accountApi("POST", "/api/trainer/answer", { id: this.position.id, answers });
    } catch (error) {
      this.error = error.message;
      this.render();
      return;
    }
    this.error = null;
    this.score.credit += this.result.credit;
    this.score.questions += this.result.questions;
    this.score.positions += 1;
    if (this.result.standing) this.standing = { ...(this.standing || {}), [this.moment]: this.result.standing };
    this.phase = "marked";
    this.render();
    announce(t("trainer.scored", { credit: this.result.credit, questions: this.result.questions }));
    const next = this.root.querySelector("#trainer-next");
    if (next) next.focus();
  }

  choose(moment, preset) {
    this.moment = moment;
    this.preset = preset;
    history.replaceState(null, "", `/trainer?moment=${moment}&preset=${preset}`);
    this.load();
  }

  controls() {
    const momentSelect = h("select", { id: "trainer-moment", onchange: (e) => this.choose(e.target.value, this.preset) },
      MOMENTS.map((m) => h("option", { value: m, selected: m === this.moment }, t(`trainer.moment.${m}`))));
    const presetSelect = h("select", { id: "trainer-preset", onchange: (e) => this.choose(this.moment, e.target.value) },
      PRESETS.map((p) => h("option", { value: p, selected: p === this.preset }, presetName(p))));
    return h("div", { class: "trainer-controls" },
      h("label", { class: "field" }, h("span", {}, t("trainer.momentLabel")), momentSelect),
      h("label", { class: "field" }, h("span", {}, t("trainer.presetLabel")), presetSelect),
      h("button", { type: "button", id: "trainer-new", onclick: () => this.load() }, t("trainer.new")));
  }

  scoreLine() {
    const s = this.score;
    const kept = this.standing && this.standing[this.moment];
    return h("p", { class: "trainer-score", id: "trainer-score", role: "status" },
      t("trainer.runningScore", { credit: s.credit, questions: s.questions }), " · ", tn("trainer.positions", s.positions),
      currentAccount()
        ? [" · ", h("span", { id: "trainer-best" }, kept
          ? t("trainer.best", { streak: kept.best_streak, best: kept.best_position, positions: kept.positions })
          : t("trainer.noneKept"))]
        : [" · ", t("trainer.guest"), " ", h("a", { href: "/account", onclick: (e) => { e.preventDefault(); navigate("/account"); } }, t("account.signIn"))]);
  }

  watching() {
    const view = this.position.view;
    const play = view.plays[this.step];
    const dealt = view.centre_dealt.filter(Boolean);
    return h("section", { class: "trainer-watch", id: "trainer-watch", "aria-labelledby": "trainer-watch-title" },
      h("h2", { id: "trainer-watch-title" }, t("trainer.watch")),
      this.step === 0 && dealt.length > 0 && h("p", { class: "muted" }, t("trainer.dealt", { cards: dealt.map(cardShort).join(" ") })),
      h("div", { class: "trainer-passing", id: "trainer-passing", "data-step": this.step },
        h("div", { class: "trainer-card" }, cardSvg(play.card)),
        h("p", {}, h("span", { class: "trainer-count" }, `${this.step + 1} / ${view.plays.length}`), " ",
          t(play.seat === view.seat ? "trainer.youPlayed" : "trainer.played", { n: play.seat + 1, card: cardName(play.card) }),
          play.taken ? ` (${tn("puzzles.took", play.taken)})` : "")),
      h("button", { type: "button", id: "trainer-skip", onclick: () => this.ask() }, t("trainer.skip")));
  }

  now() {
    const view = this.position.view;
    return h("section", { class: "trainer-now", "aria-label": t("trainer.now") },
      h("dl", { class: "puzzle-facts" },
        h("dt", {}, t("trainer.batch")), h("dd", { id: "trainer-batch" }, `${this.position.batch} / ${Math.floor((52 * (view.rules.decks || 1) - view.rules.centre_size) / (view.rules.players * view.rules.batch_size))}`),
        h("dt", {}, t("puzzles.stock")), h("dd", {}, view.stock_size),
        view.shown && h("dt", {}, t("trainer.shown")), view.shown && h("dd", {}, cardShort(view.shown))),
      h("div", { class: "trainer-centre" }, view.centre_top
        ? [h("div", { class: "puzzle-card-face", title: cardName(view.centre_top) }, cardSvg(view.centre_top)),
          h("span", { class: "visually-hidden" }, cardName(view.centre_top)),
          h("span", { id: "trainer-pile" }, tn("puzzles.pile", view.centre_size))]
        : h("p", { id: "trainer-pile" }, t("puzzles.emptyCentre"))),
      h("div", { class: "trainer-hand", "aria-labelledby": "trainer-hand-title", role: "group" },
        h("span", { class: "trainer-hand-title", id: "trainer-hand-title" }, t("puzzles.yourHand")),
        view.hand.map((card) => h("div", { class: "trainer-hand-card", title: cardName(card) }, cardSvg(card),
          h("span", { class: "visually-hidden" }, cardName(card))))));
  }

  render() {
    const body = [h("h1", {}, t("trainer.title")), h("p", { class: "trainer-intro" }, t("trainer.intro")), this.controls(), this.scoreLine()];
    if (this.error) body.push(h("p", { class: "error", id: "trainer-error", role: "alert" }, this.error));
    if (this.position) {
      const board = h("div", { class: "trainer-board", "data-position": this.position.id, "data-phase": this.phase });
      if (this.phase === "watch") board.append(this.watching());
      else {
        board.append(this.now());
        if (this.phase === "ask") board.append(questionForm(this.position.questions, "drill", (answers) => this.answer(answers)));
        else {
          board.append(h("section", { class: "trainer-result", id: "trainer-result" },
            h("h2", {}, t("trainer.scored", { credit: this.result.credit, questions: this.result.questions })),
            marksList(this.position.questions, this.result, "drill-marks"),
            h("button", { type: "button", class: "primary", id: "trainer-next", onclick: () => this.load() }, t("trainer.next"))));
        }
      }
      body.push(board);
    }
    this.root.replaceChildren(h("div", { class: "trainer" }, body));
  }
}

// -- at a casual table (methods of TableScreen) --------------------------------------------------

export const trainerMethods = {
  /** The seat's token for the trainer's routes (a pass-and-play device's for the seat shown). */
  trainerToken() {
    if (this.passPlay) {
      const tokens = passPlayTokens(this.tableId) || {};
      return tokens[this.seat] || null;
    }
    const held = heldSeat(this.tableId);
    return held ? held.token : null;
  },

  /** Whether the quiz and the counting aid are offered: a casual table, a seated player. */
  trainerOffered() {
    return Boolean(this.table && this.table.casual && this.seat !== null && this.table.status === "playing");
  },

  /** The "Quiz me" button of the top line (casual tables, your turn); asks by itself at the batch chosen. */
  renderQuizButton() {
    if (!this.trainerOffered() || !this.view) return null;
    const due = Number(localStorage.getItem(QUIZ_BATCH_KEY) || 0);
    const key = `${this.view.round}:${due}`;
    if (due && this.myTurn() && batchOf(this.view) === due && this.quizAskedAt !== key && !this.quiz) {
      this.quizAskedAt = key;
      queueMicrotask(() => this.openQuiz());
    }
    return h("button", { type: "button", class: "small", id: "quiz-button", disabled: !this.myTurn(), onclick: () => this.openQuiz() },
      t("trainer.quizMe"));
  },

  async openQuiz() {
    if (this.quiz || !this.trainerOffered() || !this.view) return;
    useTrainerStyle();
    this.quizAskedAt = `${this.view.round}:${batchOf(this.view)}`; // asked in this batch: not again by itself
    let asked;
    try {
      asked = await api("GET", `/api/tables/${encodeURIComponent(this.tableId)}/quiz`, undefined, this.trainerToken());
    } catch (error) {
      this.notice = t("trainer.quizFailed", { message: error.message });
      this.renderNotice();
      return;
    }
    const due = h("select", { id: "quiz-batch", onchange: (e) => localStorage.setItem(QUIZ_BATCH_KEY, e.target.value) },
      h("option", { value: "0" }, t("trainer.askOff")),
      Array.from({ length: 8 }, (_, i) => h("option", { value: String(i + 1), selected: localStorage.getItem(QUIZ_BATCH_KEY) === String(i + 1) }, t("trainer.askAt", { n: i + 1 }))));
    const body = h("div", { class: "quiz-body" });
    const dialog = h("dialog", { class: "confirm-dialog quiz-dialog", id: "quiz-dialog", "aria-labelledby": "quiz-title" },
      h("h2", { id: "quiz-title" }, t("trainer.quizTitle", { n: asked.batch })),
      body,
      h("label", { class: "field quiz-setting" }, h("span", {}, t("trainer.askLabel")), due),
      h("form", { method: "dialog", class: "row" }, h("button", { type: "submit", id: "quiz-close" }, t("trainer.close"))));
    const check = async (answers) => {
      try {
        const result = await api("POST", `/api/tables/${encodeURIComponent(this.tableId)}/quiz`, { seq: asked.seq, answers }, this.trainerToken());
        body.replaceChildren(h("p", { class: "quiz-total", id: "quiz-total" }, t("trainer.scored", { credit: result.credit, questions: result.questions })),
          marksList(asked.questions, result, "quiz-marks"));
        announce(t("trainer.scored", { credit: result.credit, questions: result.questions }));
        dialog.querySelector("#quiz-close").focus();
      } catch (error) {
        body.prepend(h("p", { class: "error", role: "alert" }, error.message));
      }
    };
    body.append(questionForm(asked.questions, "quiz", check));
    dialog.addEventListener("close", () => {
      dialog.remove();
      this.quiz = null;
      this.render();
    });
    this.quiz = dialog;
    this.render(); // the counting aid is hidden while the quiz is open
    document.body.append(dialog);
    dialog.showModal();
    const first = dialog.querySelector("input, .quiz-toggle");
    if (first) first.focus();
  },

  /** Fetch the counting aid's grid when the view has moved on since the last one. */
  refreshCounting() {
    if (this.countingFor === this.seq || this.countingBusy) return;
    const seq = this.seq;
    this.countingBusy = true;
    api("GET", `/api/tables/${encodeURIComponent(this.tableId)}/counting`, undefined, this.trainerToken())
      .then((answer) => { this.counting = answer; this.countingError = null; })
      .catch((error) => { if (error.code !== "not-playing") this.countingError = error.message; })
      .finally(() => {
        this.countingFor = seq;
        this.countingBusy = false;
        if (this.showMemory && this.connection) this.render();
      });
  },

  /** The counting aid: a 13 × 4 grid of this round's cards, those seen gone struck out, your
   * hand's marked, and under each rank how many are still out (the server's count, from your view). */
  renderMemory() {
    if (this.quiz) return null;
    useTrainerStyle();
    this.refreshCounting();
    const cells = new Map();
    for (const row of (this.counting && this.counting.grid) || []) for (const cell of row.cards) cells.set(cell.card, cell);
    const decks = this.view.rules.decks || 1;
    const rows = [...SUITS].map((suit) => h("tr", {},
      h("th", { scope: "row", class: `suit-${suit}` }, h("span", { "aria-hidden": "true" }, cardShort(`A${suit}`).slice(1)), h("span", { class: "visually-hidden" }, t(`suit.${suit}`))),
      [...RANKS].map((rank) => {
        const code = rank + suit;
        const cell = cells.get(code) || { gone: 0, hand: 0, out: decks };
        const state = cell.gone ? t("memory.played") : cell.hand ? t("counting.inHand") : t("memory.unseen");
        return h("td", { class: cell.gone >= decks ? "gone" : cell.gone ? "half" : cell.hand ? "mine" : "", "aria-label": `${cardName(code)}: ${state}` },
          cardShort(code).slice(0, -1));
      })));
    const outs = [...RANKS].map((rank) => [...SUITS].reduce((n, suit) => n + (cells.get(rank + suit) || { out: 0 }).out, 0));
    return h("section", { class: "memory panel", id: "memory", "aria-labelledby": "memory-title", "data-seq": this.countingFor ?? "" },
      h("h2", { id: "memory-title" }, t("memory.title")),
      h("table", { class: "memory-grid" }, h("tbody", {}, rows)),
      this.counting && h("table", { class: "counting-out", id: "counting-out" },
        h("caption", {}, t("counting.out")),
        h("tbody", {}, h("tr", {}, [...RANKS].map((rank) => h("th", { scope: "col" }, rankShort(rank)))),
          h("tr", {}, [...RANKS].map((rank, i) => h("td", { "data-rank": rank, "aria-label": t("counting.outOf", { rank: t(`rank.${rank}`), n: outs[i] }) }, outs[i]))))),
      this.countingError ? h("p", { class: "error" }, this.countingError) : h("p", { class: "muted" }, t("counting.help")));
  },
};
