// Learn to play (/#learn, /#learn/<lesson>): the tutorial's lessons, played through the real
// engine on the server (GET /api/learn/<lang>); this page only shows each step, takes the
// learner's card, count or answer, and explains what happened. Finished lessons are kept in
// localStorage. Offline, the same lessons come from the service worker, which keeps them (sw.js):
// the offline lobby opens this screen too.
import { cardName, cardShort, cardSvg } from "./cards.js";
import { announce, h } from "./dom.js";
import { currentLanguage, t } from "./i18n.js";

const DONE_KEY = "kseri.learn.done";
const STYLE_ID = "learn-style";

/** The lessons this browser has finished, by id. */
export function finishedLessons() {
  try {
    return new Set(JSON.parse(localStorage.getItem(DONE_KEY) || "[]"));
  } catch {
    return new Set();
  }
}

function markFinished(id) {
  const done = finishedLessons();
  done.add(id);
  localStorage.setItem(DONE_KEY, JSON.stringify([...done]));
}

function fill(text, params) {
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

/** What to say to a wrong count: too many or too few, and how to count (the cards, one for each
 *  picture under ``label``; or the points, card by card and then the bonuses). */
export function countHint(step, tried, label) {
  const direction = t(tried > step.answer ? "learn.countHigh" : "learn.countLow", { n: tried });
  const cards = step.answer === step.captured.length;
  return `${direction} ${t(cards ? "learn.countCardsHint" : "learn.countPointsHint", { label })}`;
}

export class LearnScreen {
  constructor(root, lessonId) {
    this.root = root;
    this.lessonId = lessonId;
    this.tutorial = null;
    this.step = 0;
    this.answered = false; // the current step has been done right: show what happened
    this.feedback = "";
    this.error = "";
  }

  async start() {
    if (!document.getElementById(STYLE_ID)) {
      document.head.append(h("link", { rel: "stylesheet", href: "/static/css/learn.css", id: STYLE_ID }));
    }
    await this.load();
  }

  destroy() {}

  async refresh() {
    await this.load();
  }

  async load() {
    try {
      const response = await fetch(`/api/learn/${currentLanguage()}`);
      if (!response.ok) throw new Error(String(response.status));
      this.tutorial = await response.json();
      this.error = "";
    } catch (error) {
      this.error = String(error);
    }
    this.render();
  }

  ui(key, params = {}) {
    return fill(this.tutorial.ui[key] ?? key, params);
  }

  lesson() {
    return this.tutorial.lessons.find((lesson) => lesson.id === this.lessonId) || null;
  }

  render() {
    if (this.error || !this.tutorial) {
      this.root.replaceChildren(h("p", { class: "error" }, this.error || "…"));
      return;
    }
    const lesson = this.lesson();
    this.root.replaceChildren(lesson ? this.renderLesson(lesson) : this.renderList());
  }

  renderList() {
    const done = finishedLessons();
    const lessons = this.tutorial.lessons;
    const next = lessons.find((lesson) => !done.has(lesson.id));
    return h("section", { class: "learn learn-list" },
      h("h1", { class: "learn-title" }, this.ui("lessons")),
      h("ol", { class: "lesson-list" }, lessons.map((lesson) =>
        h("li", { class: done.has(lesson.id) ? "lesson-item finished" : lesson === next ? "lesson-item next" : "lesson-item" },
          h("a", { href: `/#learn/${lesson.id}`, class: "lesson-link", id: `lesson-${lesson.id}` },
            h("span", { class: "lesson-name" }, lesson.title),
            done.has(lesson.id) && h("span", { class: "lesson-done" }, `✓ ${this.ui("completed")}`),
            lesson === next && h("span", { class: "lesson-next" }, `→ ${this.ui("startHere")}`)),
          h("p", { class: "lesson-intro" }, lesson.intro)))));
  }

  renderLesson(lesson) {
    const lessons = this.tutorial.lessons;
    const number = lessons.indexOf(lesson) + 1;
    const step = lesson.steps[this.step];
    return h("section", { class: "learn learn-lesson", "data-lesson": lesson.id, "data-step": this.step },
      h("p", { class: "learn-nav" }, h("a", { href: "/#learn", id: "all-lessons" }, `← ${this.ui("back")}`)),
      h("h1", { class: "learn-title" },
        h("span", { class: "learn-progress" }, this.ui("progress", { n: number, total: lessons.length })),
        " ", lesson.title),
      this.step === 0 && !this.answered && h("p", { class: "learn-intro" }, lesson.intro),
      step.kind === "play" ? this.renderPlay(step) : step.kind === "count" ? this.renderCount(step) : this.renderChoice(step),
      this.renderOutcome(lesson, step));
  }

  /** The instruction box, with the feedback to a wrong try. */
  renderAsk(text) {
    return h("div", { class: "learn-ask", role: "status" },
      h("p", { class: "learn-do" }, text),
      this.feedback && h("p", { class: "learn-feedback" }, this.feedback),
      this.feedback && this.hint && h("p", { class: "learn-hint", id: "learn-hint" }, this.hint));
  }

  renderTable(table) {
    const centre = table.centre;
    const top = centre[centre.length - 1];
    const counts = [
      this.ui("opponentCards", { n: table.opponent }),
      this.ui("stock", { n: table.stock }),
      this.ui("captured", { n: table.captured[0] }),
    ];
    if (table.face_down) counts.push(this.ui("faceDown", { n: table.face_down }));
    const kseris = table.kseris[0].length;
    if (kseris) counts.push(this.ui("kseris", { n: kseris }));
    return h("div", { class: "learn-table" },
      h("section", { class: "learn-centre", "aria-label": this.ui("centre") },
        h("h2", { class: "learn-caption" }, this.ui("centre")),
        centre.length
          ? h("ol", { class: "learn-pile" },
            Array.from({ length: table.face_down }, () => h("li", { class: "pile-card" }, cardSvg(null))),
            centre.map((code) =>
              h("li", { class: code === top ? "pile-card top" : "pile-card", title: cardName(code) },
                cardSvg(code), h("span", { class: "visually-hidden" }, cardName(code)))))
          : h("p", { class: "learn-empty" }, this.ui("emptyCentre"))),
      h("p", { class: "learn-counts" }, counts.join(" · ")),
      table.shown && h("p", { class: "learn-shown" }, this.ui("shown", { card: cardShort(table.shown) })),
      table.seen.length > 0 && h("p", { class: "learn-seen" },
        this.ui("seen", { cards: table.seen.map(cardShort).join(" ") })));
  }

  renderPlay(step) {
    const table = this.answered ? step.after : step.before;
    return h("div", { class: "learn-step" },
      this.renderTable(table),
      !this.answered && this.renderAsk(step.do),
      h("h2", { class: "learn-caption" }, this.ui("yourHand")),
      h("ul", { class: "learn-hand" }, table.hand.map((code) =>
        h("li", {},
          h("button", {
            type: "button", class: "learn-card", "data-card": code,
            disabled: this.answered, onclick: () => this.tryCard(step, code),
          }, cardSvg(code), h("span", { class: "visually-hidden" }, cardName(code)))))));
  }

  renderCount(step) {
    const input = h("input", { type: "number", id: "learn-count", inputmode: "numeric", min: 0, disabled: this.answered,
      "aria-label": step.do, value: this.counted ?? null, "aria-invalid": this.feedback ? "true" : null });
    const check = (event) => {
      event.preventDefault();
      this.tryCount(step, input.value);
    };
    return h("div", { class: "learn-step" },
      h("h2", { class: "learn-caption" }, this.ui("yourCards")),
      h("ul", { class: "learn-captured" }, step.captured.map((code) =>
        h("li", { title: cardName(code) }, cardSvg(code), h("span", { class: "visually-hidden" }, cardName(code))))),
      h("p", { class: "learn-counts" }, this.ui("opponentCaptured", { n: step.opponent_cards })),
      !this.answered && this.renderAsk(step.do),
      !this.answered && h("form", { class: "learn-count", onsubmit: check },
        input, h("button", { type: "submit", class: "primary", id: "learn-check" }, this.ui("check"))));
  }

  renderChoice(step) {
    return h("div", { class: "learn-step" },
      step.cards && h("ol", { class: "learn-pile laid" }, step.cards.map((code, index) =>
        h("li", { class: index === step.cards.length - 1 ? "pile-card top" : "pile-card", title: cardName(code) },
          cardSvg(code), h("span", { class: "visually-hidden" }, cardName(code))))),
      !this.answered && this.renderAsk(step.do),
      h("div", { class: "learn-options" }, step.options.map((option, index) =>
        h("button", {
          type: "button", class: this.answered && index === step.answer ? "learn-option right" : "learn-option",
          "data-option": index, disabled: this.answered, onclick: () => this.tryChoice(step, index),
        }, option))));
  }

  /** After the right action: what happened, and the way on. */
  renderOutcome(lesson, step) {
    if (!this.answered) return null;
    const last = this.step === lesson.steps.length - 1;
    const next = this.tutorial.lessons[this.tutorial.lessons.indexOf(lesson) + 1];
    const lines = [];
    if (step.kind === "play") {
      for (const event of step.events) {
        lines.push(h("li", {}, event.text));
        for (const mark of event.marks) lines.push(h("li", { class: "learn-mark" }, mark.text));
      }
    } else if (step.kind === "count") {
      lines.push(h("li", { class: "learn-right" }, `${this.ui("right")} ${step.answer}`));
      if (step.breakdown) lines.push(h("li", {}, step.breakdown));
    } else {
      lines.push(h("li", { class: "learn-right" }, `${this.ui("right")} ${step.options[step.answer]}`));
    }
    let onward;
    if (!last) onward = h("button", { type: "button", class: "primary", id: "learn-next", onclick: () => this.go(this.step + 1) }, this.ui("next"));
    else if (next) onward = h("a", { class: "button primary", id: "learn-next", href: `/#learn/${next.id}` }, `${this.ui("next")}: ${next.title}`);
    else onward = h("a", { class: "button primary", id: "learn-next", href: "/#learn" }, this.ui("back"));
    return h("div", { class: "learn-outcome" },
      h("ul", { class: "learn-events" }, lines),
      h("p", { class: "learn-done" }, step.done),
      last && h("p", { class: "learn-finished" }, `✓ ${lesson.title}: ${this.ui("completed")}`),
      last && !next && h("p", { class: "learn-finished" }, this.ui("allDone")),
      onward);
  }

  go(step) {
    this.step = step;
    this.answered = false;
    this.feedback = "";
    this.counted = null; // the number last tried at a counting step (kept, to be corrected)
    this.render();
    const ask = this.root.querySelector(".learn-do");
    if (ask) announce(ask.textContent);
    this.root.querySelector(".learn-card:not(:disabled), #learn-count, .learn-option")?.focus();
  }

  succeed() {
    const lesson = this.lesson();
    this.answered = true;
    this.feedback = "";
    if (this.step === lesson.steps.length - 1) markFinished(lesson.id);
    this.render();
    const done = this.root.querySelector(".learn-done");
    if (done) announce(done.textContent);
    this.root.querySelector("#learn-next")?.focus();
  }

  fail(text, hint = "") {
    // Keep the focus on the control the learner used, redrawn.
    const used = document.activeElement;
    const again = used?.dataset?.card ? `[data-card="${used.dataset.card}"]`
      : used?.dataset?.option ? `[data-option="${used.dataset.option}"]` : "#learn-count";
    this.feedback = text;
    this.hint = hint;
    this.render();
    const control = this.root.querySelector(again);
    control?.focus();
    if (control && control.id === "learn-count") control.select();
    announce(hint ? `${text} ${hint}` : text);
  }

  tryCard(step, code) {
    if (code === step.card) this.succeed();
    else this.fail(step.wrong[code] || this.ui("notRight"));
  }

  tryCount(step, value) {
    this.counted = value.trim();
    if (!/^\d+$/.test(this.counted)) this.fail(this.ui("notNumber"));
    else if (Number(value) === step.answer) this.succeed();
    else this.fail(this.ui("notRight"), countHint(step, Number(value), this.ui("yourCards")));
  }

  tryChoice(step, index) {
    if (index === step.answer) this.succeed();
    else this.fail(this.ui("notRight"));
  }
}
