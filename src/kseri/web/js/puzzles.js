// Puzzles (/puzzles, docs/analysis.md): a position from a real game as its seat saw it, the card
// to choose, then the answer, every card's value, the themes and the rating change. Modes: the
// next puzzle near the player's rating, a streak (until the first miss), the daily puzzle, and
// the failed ones again. Guests solve unrated (the puzzles they saw kept in this tab). A chooser
// picks the rule family (Greek, Pisti...) the puzzles come from; the choice is kept in this browser.
import { ApiError, api } from "./api.js";
import { accountApi, currentAccount } from "./account.js";
import { cardName, cardSvg } from "./cards.js";
import { announce, h, navigate } from "./dom.js";
import { t, tn } from "./i18n.js";
import { presetName } from "./rules-help.js";

const MODES = ["next", "streak", "daily", "retry"];

/** After a game (the end panel): a signed-in player's biggest mistakes of it become its puzzles
 * (served first), then the puzzles page opens; a guest goes straight to the puzzles. */
export async function puzzlesFromGame(tableId) {
  if (currentAccount()) {
    try {
      await accountApi("POST", `/api/tables/${encodeURIComponent(tableId)}/puzzles`);
    } catch {
      // the usual puzzles, then
    }
  }
  navigate("/puzzles");
}

export class PuzzleScreen {
  constructor(root) {
    this.root = root;
    this.mode = "next";
    this.puzzle = null;
    this.result = null;
    this.standing = null;
    this.error = null;
    this.run = 0; // the streak of this visit (streak mode)
    this.seen = []; // a guest's puzzles this visit (not served again)
    this.busy = false;
    this.families = []; // [{family, puzzles}] from the server
    this.family = localStorage.getItem("kseri.puzzleFamily") || ""; // "": every family
  }

  async start() {
    const mode = new URLSearchParams(location.search).get("mode");
    if (MODES.includes(mode)) this.mode = mode;
    try {
      this.families = (await api("GET", "/api/puzzles/families")).families;
    } catch {
      this.families = [];
    }
    if (!this.families.some((f) => f.family === this.family)) this.family = "";
    if (currentAccount()) {
      try {
        this.standing = await api("GET", "/api/puzzles/rating");
      } catch {
        this.standing = null;
      }
    }
    await this.load();
  }

  destroy() {}

  refresh() {
    this.render();
  }

  async choose(mode) {
    this.mode = mode;
    this.run = 0;
    history.replaceState(null, "", mode === "next" ? "/puzzles" : `/puzzles?mode=${mode}`);
    await this.load();
  }

  async chooseFamily(family) {
    this.family = family;
    localStorage.setItem("kseri.puzzleFamily", family);
    this.run = 0;
    await this.load();
  }

  async load() {
    const path = { next: "/api/puzzles/next", streak: "/api/puzzles/next", daily: "/api/puzzles/daily", retry: "/api/puzzles/retry" }[this.mode];
    const query = new URLSearchParams();
    if (this.family) query.set("family", this.family);
    if (!currentAccount() && this.seen.length && this.mode !== "daily" && this.mode !== "retry") query.set("skip", this.seen.slice(-60).join(","));
    this.result = null;
    this.error = null;
    try {
      this.puzzle = await api("GET", path + (query.size ? `?${query}` : ""));
      if (!this.seen.includes(this.puzzle.id)) this.seen.push(this.puzzle.id);
    } catch (error) {
      this.puzzle = null;
      this.error = error instanceof ApiError && error.code === "no-failed-puzzle" ? t("puzzles.noFailed")
        : error instanceof ApiError && error.code === "guest" ? t("puzzles.retryGuest") : error.message;
    }
    this.render();
    const first = this.root.querySelector(".puzzle-hand .card-button");
    if (first) first.focus();
  }

  async answer(card) {
    if (this.busy || this.result || !this.puzzle) return;
    this.busy = true;
    try {
      this.result = await accountApi("POST", `/api/puzzles/${this.puzzle.id}/answer`, { card });
      this.result.card = card;
      if (this.result.standing) this.standing = this.result.standing;
      if (this.mode === "streak") this.run = this.result.solved ? this.run + 1 : this.run;
      announce(this.result.solved ? t("puzzles.solved") : t("puzzles.failed"));
    } catch (error) {
      this.error = error.message;
    } finally {
      this.busy = false;
    }
    this.render();
    const next = this.root.querySelector("#puzzle-continue");
    if (next) next.focus();
  }

  modeBar() {
    return h("nav", { class: "puzzle-modes", "aria-label": t("puzzles.modes") },
      MODES.map((mode) => h("button", {
        type: "button", id: `puzzle-mode-${mode}`, class: mode === this.mode ? "primary" : "",
        "aria-pressed": String(mode === this.mode), onclick: () => this.choose(mode),
      }, t(`puzzles.mode.${mode}`))));
  }

  familyChooser() {
    if (this.families.length < 2) return null;
    const options = [h("option", { value: "", selected: this.family === "" }, t("puzzles.allFamilies"))]
      .concat(this.families.map((f) => h("option", { value: f.family, selected: f.family === this.family }, `${presetName(f.family)} (${f.puzzles})`)));
    return h("label", { class: "field inline puzzle-family" }, h("span", {}, t("puzzles.family")),
      h("select", { id: "puzzle-family", onchange: (e) => this.chooseFamily(e.target.value) }, options));
  }

  standingLine() {
    if (!currentAccount()) {
      return h("p", { class: "puzzle-standing muted", id: "puzzle-standing" }, t("puzzles.guest"), " ",
        h("a", { href: "/account", onclick: (e) => { e.preventDefault(); navigate("/account"); } }, t("account.signIn")));
    }
    const s = this.standing || { rating: 1500, solved: 0, failed: 0, best_streak: 0 };
    return h("p", { class: "puzzle-standing", id: "puzzle-standing" },
      t("puzzles.rating", { rating: s.rating }), " · ", t("puzzles.record", { solved: s.solved, failed: s.failed }),
      " · ", t("puzzles.bestStreak", { n: s.best_streak }));
  }

  position() {
    const view = this.puzzle.view;
    const seats = view.hand_sizes.length;
    const others = [...Array(seats).keys()].filter((seat) => seat !== view.seat);
    const recent = view.plays.slice(-4);
    const centre = view.centre_top
      ? h("div", { class: "puzzle-pile" }, h("div", { class: "puzzle-card-face", title: cardName(view.centre_top) }, cardSvg(view.centre_top)),
        h("span", { class: "visually-hidden" }, cardName(view.centre_top)),
        h("span", { class: "puzzle-pile-size" }, tn("puzzles.pile", view.centre_size)))
      : h("p", { class: "puzzle-pile empty" }, t("puzzles.emptyCentre"));
    return h("section", { class: "puzzle-position", "aria-label": t("puzzles.position") },
      h("dl", { class: "puzzle-facts" },
        h("dt", {}, t("puzzles.round")), h("dd", {}, view.round + 1),
        h("dt", {}, t("puzzles.stock")), h("dd", { id: "puzzle-stock" }, view.stock_size),
        h("dt", {}, t("puzzles.captured")), h("dd", {}, view.captured_sizes.map((n, side) => `${side === view.side ? t("seat.you") : t("puzzles.them")}: ${n}`).join(" · ")),
        h("dt", {}, t("puzzles.theirHand")), h("dd", {}, others.map((seat) => view.hand_sizes[seat]).join(" · ")),
        h("dt", {}, t("puzzles.rules")), h("dd", { id: "puzzle-rules" }, presetName(view.rules.name)),
        view.shown && h("dt", {}, t("puzzles.shownCard")), view.shown && h("dd", { id: "puzzle-shown" }, cardName(view.shown))),
      h("div", { class: "puzzle-centre" }, h("h2", {}, t("puzzles.centre")), centre),
      recent.length > 0 && h("p", { class: "puzzle-recent muted" }, t("puzzles.recent"), " ",
        recent.map((play) => `${play.seat === view.seat ? t("seat.you") : t("puzzles.them")} ${cardName(play.card)}${play.taken ? ` (${tn("puzzles.took", play.taken)})` : ""}`).join("; ")));
  }

  hand() {
    const answered = this.result;
    return h("section", { class: "puzzle-hand-box", "aria-label": t("puzzles.yourHand") },
      h("h2", { id: "puzzle-prompt" }, answered ? t("puzzles.yourHand") : t("puzzles.choose")),
      h("div", { class: "puzzle-hand" }, this.puzzle.hand.map((card, index) => {
        const mark = !answered ? "" : answered.answers.includes(card) ? " answer" : card === answered.card ? " chosen" : "";
        const value = answered ? answered.values.find(([c]) => c === card) : null;
        return h("button", {
          type: "button", class: `card-button${mark}`, id: `puzzle-card-${index}`, "data-card": card,
          "aria-disabled": answered ? "true" : null, onclick: () => this.answer(card),
        }, h("span", { class: "visually-hidden" }, cardName(card)), cardSvg(card),
        value && h("span", { class: "puzzle-value" }, value[1].toFixed(1)));
      })));
  }

  resultPanel() {
    const r = this.result;
    const change = r.rating && r.rating.change;
    const continueLabel = this.mode === "streak" && !r.solved ? t("puzzles.newStreak") : t("puzzles.continue");
    return h("section", { class: `puzzle-result ${r.solved ? "solved" : "failed"}`, id: "puzzle-result", role: "status" },
      h("h2", {}, r.solved ? t("puzzles.solved") : t("puzzles.failed")),
      h("p", { id: "puzzle-answer" }, t("puzzles.answer", { cards: r.answers.map(cardName).join(", ") })),
      h("p", { class: "muted", id: "puzzle-values-help" }, t("puzzles.values")),
      r.themes.length > 0 && h("p", { class: "puzzle-themes" }, t("puzzles.themes"), " ", r.themes.map((theme) => t(`puzzles.theme.${theme}`)).join(", ")),
      r.rating
        ? h("p", { id: "puzzle-rating-change", class: change > 0 ? "up" : change < 0 ? "down" : "" },
          r.rated ? t("puzzles.change", { change: change > 0 ? `+${change}` : String(change), rating: r.rating.after }) : t("puzzles.unratedRetry"))
        : h("p", { id: "puzzle-rating-change", class: "muted" }, t("puzzles.unrated")),
      this.mode === "streak" && h("p", { id: "puzzle-streak-count", class: "puzzle-streak" },
        r.solved ? tn("puzzles.streak", this.run) : t("puzzles.streakEnded", { n: this.run })),
      h("div", { class: "row" },
        h("button", { type: "button", class: "primary", id: "puzzle-continue", onclick: () => { if (this.mode === "streak" && !r.solved) this.run = 0; this.load(); } }, continueLabel)));
  }

  render() {
    const body = [h("h1", {}, t("puzzles.title")), this.modeBar(), this.familyChooser(), this.standingLine()];
    if (this.mode === "streak" && !this.result) body.push(h("p", { id: "puzzle-streak-count", class: "puzzle-streak" }, tn("puzzles.streak", this.run)));
    if (this.error) body.push(h("p", { class: "error", id: "puzzle-error", role: "alert" }, this.error));
    if (this.puzzle) {
      body.push(h("div", { class: "puzzle-board", "data-puzzle": this.puzzle.id },
        this.mode === "daily" && h("p", { class: "puzzle-daily" }, t("puzzles.dailyIntro")),
        this.position(), this.hand(), this.result && this.resultPanel()));
    }
    this.root.replaceChildren(h("div", { class: "puzzles" }, body));
  }
}
