// The table's hand: your cards (with the hint's values), playing one by click, tap or key,
// and the switch of the counting aid (drawn by trainer.js). Methods of TableScreen (table.js).
import { cardName, cardShort, cardSvg } from "./cards.js";
import { announce, h } from "./dom.js";
import { t, tn } from "./i18n.js";

export const handMethods = {
  myTurn() {
    return this.view && this.seat !== null && this.view.turn === this.seat && this.view.phase === "playing"
      && this.table.status === "playing" && !this.queue.length && !this.animating;
  },

  /** Whether the state says this seat is to play (drawn or not yet). */
  turnIsMine() {
    return Boolean(this.view && this.seat !== null && this.view.turn === this.seat && this.view.phase === "playing"
      && this.table.status === "playing");
  },

  play(card) {
    if (!this.myTurn()) {
      this.notice = this.view && this.view.turn !== null ? t("table.notYourTurn") : t("table.noPlayNow");
      announce(this.notice);
      this.renderNotice();
      return;
    }
    if (this.sentSeq === this.seq) return; // one play per state: a double click sends one
    if (this.connection.send({ type: "play", card, seq: this.seq })) {
      this.sentSeq = this.seq;
    } else {
      this.notice = t("table.offline");
      this.renderNotice();
    }
  },

  askHint() {
    this.connection.send({ type: "hint" });
  },

  onKey(event) {
    const target = event.target;
    if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT")) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const hand = this.view ? this.view.hand : [];
    if (/^[1-9]$/.test(event.key)) {
      const index = Number(event.key) - 1;
      if (index < hand.length) {
        event.preventDefault();
        this.play(hand[index]);
      }
      return;
    }
    const buttons = [...this.root.querySelectorAll(".hand .card-button")];
    const position = buttons.indexOf(document.activeElement);
    if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
      if (!buttons.length) return;
      event.preventDefault();
      const step = event.key === "ArrowRight" ? 1 : -1;
      const next = position < 0 ? 0 : (position + step + buttons.length) % buttons.length;
      buttons[next].focus();
    } else if ((event.key === "h" || event.key === "H") && this.table && this.table.casual) {
      this.askHint();
    }
  },

  renderMe() {
    const view = this.view;
    const hintValues = new Map((this.hint ? this.hint.values : []).map((v) => [v.card, `${v.value > 0 ? "+" : ""}${v.value.toFixed(1)}`]));
    const turn = this.myTurn();
    const cards = view.hand.map((card, index) => {
      const value = hintValues.get(card);
      const best = this.hint && this.hint.best === card;
      const label = cardName(card) + (value !== undefined ? `, ${t("hint.value", { value })}` : "") + (best ? `, ${t("hint.bestShort")}` : "");
      return h("li", {},
        h("button", {
          type: "button", class: `card-button${best ? " best" : ""}`, id: `hand-${index}`, "data-card": card,
          "aria-disabled": turn ? null : "true", "aria-keyshortcuts": index < 9 ? String(index + 1) : null,
          onclick: () => this.play(card),
        }, h("span", { class: "visually-hidden card-name" }, label), cardSvg(card),
        index < 9 && h("span", { class: "key-hint", "aria-hidden": "true" }, index + 1),
        value !== undefined && h("span", { class: `hint-value ${hintSign(value)}`, "aria-hidden": "true" }, value)));
    });
    const casual = this.table.casual;
    return h("section", { class: `me${view.turn === this.seat ? " turn" : ""}`, "data-seat": this.seat, "aria-label": t("table.you") },
      h("div", { class: "me-head" },
        h("span", { class: "opponent-name" }, this.passPlay ? this.nameOf(this.seat) : t("seat.you")),
        view.dealer === this.seat && h("span", { class: "tag dealer", title: t("table.dealer") }, t("table.dealerShort")),
        this.lastCapturerTag(this.seat),
        this.renderCaptured(this.sideOf(this.seat)),
        h("span", { class: "your-turn-flag", id: "your-turn-flag" }, turn ? t("table.yourTurnShort") : ""),
        this.talkBubble(this.seat),
        casual && h("button", { type: "button", id: "hint-button", class: "small", disabled: !turn, onclick: () => this.askHint(), "aria-keyshortcuts": "H" }, t("hint.button")),
        casual && h("button", {
          type: "button", id: "memory-button", class: "small", "aria-pressed": this.showMemory ? "true" : "false",
          onclick: () => {
            this.showMemory = !this.showMemory;
            localStorage.setItem("kseri.memory", this.showMemory ? "1" : "0");
            this.render();
          },
        }, t("memory.button"))),
      h("ul", { class: `hand${this.hint ? " hinted" : ""}`, style: `--n:${Math.max(view.hand.length, 2)}`, "aria-label": tn("table.yourHand", view.hand.length) }, cards),
      this.hint
        ? h("p", { class: "hint-help", id: "hint-help" }, t("hint.explain", { card: cardShort(this.hint.best) }))
        : h("p", { class: "keys-help muted" }, t("table.keysHelp")));
  },

};

/** A hint's shown value ("+1.2", "-0.4", "0.0") as gain, loss or even: a loss must not look like a gain. */
function hintSign(value) {
  const number = Number(value);
  return number > 0 ? "gain" : number < 0 ? "loss" : "even";
}
