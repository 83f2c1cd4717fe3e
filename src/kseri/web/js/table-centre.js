// The table's centre and its motion: the stock, Pisti's shown card, the pile with its top
// card, and each state shown in order (a play flies to the pile, a capture sweeps it to its
// taker, a kseri and the match's end are celebrated). Methods of TableScreen (table.js).
import { cardName, cardSvg } from "./cards.js";
import { announce, h, reducedMotion } from "./dom.js";
import { celebrate, fly, sound, sweep } from "./effects.js";
import { t, tn } from "./i18n.js";
import { escalation } from "./score.js";
import { KSERI_KINDS } from "./table-scores.js";

const CAPTURE_HOLD_MS = 650;
const FLY_MS = 300;
const BACKLOG = 3; // more states than this waiting: draw them at once (a reconnection catching up)

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export const centreMethods = {
  async drain() {
    if (this.draining) return;
    this.draining = true;
    while (this.queue.length && !this.gone) {
      const message = this.queue.shift();
      await this.apply(message, this.queue.length > 0);
    }
    this.draining = false;
  },

  /** Show one state; a play flies to the pile, a capture sweeps the pile to its taker, a kseri
   * is celebrated (fades with reduced motion), unless a backlog of states is being caught up. */
  async apply(message, behind) {
    const previous = this.view;
    const event = message.event;
    const live = !(behind && this.queue.length > BACKLOG);
    const play = event && event.kind === "play" && previous ? event : null;
    const from = play && live ? this.playSource(play) : null;
    const wasMyTurn = this.myTurn();
    this.table = message.table;
    this.view = message.view;
    this.seq = message.seq;
    this.fairness = message.fairness;
    this.history = message.history ?? this.history;
    if (this.passPlay) this.seat = this.view ? this.view.seat : null; // the seat shown, if any
    else if (this.view && this.view.seat !== undefined && this.view.seat !== null) this.seat = this.view.seat;
    if (this.passPlay) this.passPlayStep();
    else this.notices.update(this.turnIsMine(), t("notice.yourTurnBody"));
    this.rememberCommitment();
    const deadline = message.turn_deadline;
    this.turnEnds = deadline ? message.receivedAt + (deadline.at - deadline.now) * 1000 : null;
    this.hint = null;
    if (event) this.describe(event);
    else if (this.myTurn()) announce(t("table.yourTurn")); // a reload or a new tab: say whose turn it is
    const sweepEnd = play && this.view.phase !== "playing" && this.history && this.history.sweep;
    if (play && live) {
      this.animating = true;
      this.holdPanel = Boolean(sweepEnd);
      const kseri = (play.marks || []).find((m) => KSERI_KINDS.has(m.kind));
      if (play.taken > 0) {
        this.centreOverride = { top: play.card, under: previous.centre_top, size: previous.centre_size + 1 };
        this.render();
        await fly(cardSvg(play.card), from, this.root.querySelector(".pile-top"), FLY_MS);
        if (kseri) {
          sound(kseri.kind === "jack-kseri" ? "jackKseri" : "kseri");
          celebrate(kseri.kind, t(`mark.${kseri.kind}`, { points: kseri.points }), 1700, this.root.querySelector("#centre-pile"));
        } else sound("capture");
        await sleep(reducedMotion() ? 250 : CAPTURE_HOLD_MS);
        await sweep(this.root.querySelector("#centre-pile"), this.capturedPile(play.seat));
        this.centreOverride = null;
      } else if (sweepEnd) {
        this.centreOverride = { top: play.card, under: previous.centre_top, size: sweepEnd.cards };
        this.render();
        sound("play");
        await fly(cardSvg(play.card), from, this.root.querySelector(".pile-top"), FLY_MS);
      } else {
        this.render();
        sound("play");
        await fly(cardSvg(play.card), from, this.root.querySelector(".pile-top"), FLY_MS);
      }
      if (sweepEnd) {
        this.render();
        await sleep(reducedMotion() ? 200 : 500);
        sound("sweep");
        await sweep(this.root.querySelector("#centre-pile"), this.capturedPile(sweepEnd.seat));
        this.centreOverride = null;
        await sleep(reducedMotion() ? 200 : 600);
      }
      this.holdPanel = false;
      this.animating = false;
    }
    this.render();
    if (live && event && event.kind === "match-end" && !event.closed) {  // closed: announced, not celebrated
      const mine = this.seat !== null && this.sideOf(this.seat) === event.winner;
      sound(mine ? "win" : "matchEnd");
      const scores = this.root.querySelector(".overlay-panel table") || this.root.querySelector(".overlay-panel");
      celebrate(mine ? "win" : "match-end", mine ? t("end.youWin") : t("end.wins", { side: this.sideName(event.winner) }), 2600, scores);
    }
    if (live && event && event.kind === "round-end") {
      const rise = escalation(this);
      if (rise) announce(t("round.escalated", rise));
    }
    if (live && this.myTurn() && !wasMyTurn && event && !document.hidden) sound("turn"); // hidden: notices.js
    this.autoReady();
  },

  playSource(event) {
    const selector = event.seat === this.seat
      ? `.hand [data-card="${event.card}"]`
      : `[data-seat="${event.seat}"] .mini-hand`;
    const node = this.root.querySelector(selector) || this.root.querySelector(`[data-seat="${event.seat}"]`);
    return node ? node.getBoundingClientRect() : null;
  },

  /** The captured pile of a seat's side (its box, or this player's own). */
  capturedPile(seat) {
    return this.root.querySelector(`[data-seat="${seat}"] .captured .pile-icon`)
      || this.root.querySelector(`.scoreboard [data-side="${this.sideOf(seat)}"] .pile-icon`);
  },

  renderCentre() {
    const view = this.view;
    const override = this.centreOverride;
    const top = override ? override.top : view.centre_top;
    const size = override ? override.size : view.centre_size;
    const under = override ? override.under : null;
    const pileLabel = size === 0 ? t("centre.empty") : tn("centre.label", size, { card: cardName(top) });
    const layers = Math.min(Math.max(size - 1, 0), 3);
    const pile = h("div", { class: "pile", id: "centre-pile", role: "img", "aria-label": pileLabel },
      Array.from({ length: layers }, (_, i) => h("span", { class: "pile-layer", style: `--i:${i + 1}` }, cardSvg(null))),
      under && h("span", { class: "pile-under" }, cardSvg(under)),
      size > 0 ? h("span", { class: "pile-top", "data-card": top }, cardSvg(top)) : h("span", { class: "pile-top empty-slot" }, t("centre.emptyShort")));
    const stock = h("div", { class: "stock", role: "img", "aria-label": tn("centre.stock", view.stock_size) },
      view.stock_size > 0 ? h("span", { class: "stock-card" }, cardSvg(null)) : h("span", { class: "stock-card empty-slot" }),
      h("span", { class: "badge" }, view.stock_size));
    // Pisti: the stock's bottom card is shown face up to everyone; it is dealt last.
    const shown = view.shown && h("figure", { class: "shown-card", id: "shown-card" },
      h("span", { class: "shown-face", role: "img", "aria-label": t("centre.shown", { card: cardName(view.shown) }) }, cardSvg(view.shown)),
      h("figcaption", { class: "caption" }, t("centre.shownCaption")));
    return h("section", { class: "centre", "aria-label": t("centre.title") },
      h("div", { class: "stock-wrap" }, stock, h("span", { class: "caption" }, t("centre.stockCaption"))),
      shown,
      h("div", { class: "pile-wrap" }, pile,
        h("span", { class: "caption" },
          h("span", { class: "badge pile-size", id: "pile-size" }, size), " ", tn("centre.cards", size),
          view.face_down > 0 ? ` · ${tn("centre.faceDown", view.face_down)}` : "")));
  },
};
