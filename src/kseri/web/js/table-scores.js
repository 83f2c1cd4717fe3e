// The table's scores: each side against the target with its captured pile and kseri marks,
// and the opponents' boxes (hand sizes, their side's pile, dealer and last-take tags).
// Methods of TableScreen (table.js).
import { cardName, cardShort, cardSvg } from "./cards.js";
import { h } from "./dom.js";
import { t, tn } from "./i18n.js";

export const KSERI_KINDS = new Set(["kseri", "jack-kseri", "double-kseri"]);

export const scoreMethods = {
  /** A side's captured pile: its size and its kseris (with this side's last capture marked). */
  renderCaptured(side) {
    const view = this.view;
    const kseris = (view.marks[side] || []).filter((m) => KSERI_KINDS.has(m.kind)).length;
    const size = view.captured_sizes[side];
    return h("span", { class: "captured", role: "img", title: t("score.captured"), "aria-label": t("table.capturedLabel", { n: size, kseris }) },
      h("span", { class: "pile-icon", "aria-hidden": "true" }),
      h("span", { class: "captured-count", "aria-hidden": "true" }, size),
      kseris > 0 && h("span", { class: "kseri-count", "aria-hidden": "true" }, `Ξ${kseris}`));
  },

  /** A side's name in the scoreboard: a lone computer's also as "Computer 3", which a phone at
      a big table shows instead of the full name (kept for screen readers and as the tooltip). */
  /** The seats of a side. */
  seatsOf(side) {
    return Array.from({ length: this.view.rules.players }, (_, seat) => seat).filter((seat) => this.sideOf(seat) === side);
  },

  sideLabel(side) {
    const seats = this.seatsOf(side);
    const info = seats.length === 1 ? this.table.seats[seats[0]] || {} : {};
    if (info.kind !== "bot") return this.sideName(side);
    return [h("span", { class: "name-full" }, this.sideName(side)),
      h("span", { class: "name-short", "aria-hidden": "true" }, t("seat.botShort", { n: seats[0] + 1 }))];
  },

  lastCapturerTag(seat) {
    if (this.view.last_capturer !== seat) return null;
    return h("span", { class: "tag last-capturer", title: t("table.lastCapturerHelp") }, t("table.lastCapturer"));
  },

  renderScoreboard() {
    const view = this.view;
    const sides = this.sides();
    const items = [];
    for (let side = 0; side < sides; side++) {
      const marks = view.marks[side] || [];
      const kseris = marks.filter((m) => KSERI_KINDS.has(m.kind));
      const mine = this.seat !== null && this.sideOf(this.seat) === side;
      items.push(h("li", { class: `side${mine ? " mine" : ""}${view.winner === side ? " winner" : ""}`, "data-side": side },
        h("span", { class: "side-name", title: this.sideName(side) }, this.sideLabel(side),
          this.seatsOf(side).map((seat) => this.ratingTag(seat))),
        h("span", { class: "side-total", "aria-label": t("score.totalLabel", { total: view.totals[side], target: view.target }) },
          h("strong", {}, view.totals[side]), h("span", { class: "muted" }, ` / ${view.target}`)),
        this.renderCaptured(side),
        kseris.length > 0 && h("span", { class: "kseri-marks" },
          kseris.map((m) => h("span", { class: "kseri-mark", title: t(`markName.${m.kind}`), "aria-label": t("score.markLabel", { kind: t(`markName.${m.kind}`), card: cardName(m.card), points: m.points }) },
            "Ξ ", cardShort(m.card)))),
        marks.filter((m) => !KSERI_KINDS.has(m.kind)).map((m) => h("span", { class: "bonus-mark" }, t(`markName.${m.kind}`), ` +${m.points}`))));
    }
    return h("section", { class: "scoreboard", "aria-label": t("score.title") },
      h("ul", {}, items),
      h("span", { class: "target-line" }, t("score.target", { target: view.target })));
  },

  renderOpponents() {
    const view = this.view;
    const players = view.rules.players;
    const start = this.seat === null ? 0 : this.seat + 1;
    const boxes = [];
    for (let i = 0; i < players; i++) {
      const seat = (start + i) % players;
      if (seat === this.seat) continue;
      const info = this.table.seats[seat] || {};
      const size = view.hand_sizes[seat];
      const partner = this.seat !== null && this.sideOf(seat) === this.sideOf(this.seat);
      boxes.push(h("li", { class: `opponent${view.turn === seat ? " turn" : ""}`, "data-seat": seat },
        h("div", { class: "opponent-head" },
          h("span", { class: `presence ${info.kind === "bot" || info.connected ? "on" : "off"}`, "aria-hidden": "true" }),
          h("span", { class: "opponent-name", title: this.nameOf(seat) },
            h("span", { class: "name-full" }, this.nameOf(seat)),
            info.kind === "bot" && h("span", { class: "name-short", "aria-hidden": "true" }, t("seat.botShort", { n: seat + 1 }))),
          this.ratingTag(seat),
          this.botRatingTag(seat),
          partner && h("span", { class: "tag" }, t("table.partner")),
          info.standin && h("span", { class: "tag", title: t("table.standinHelp") }, t("table.standin")),
          view.dealer === seat && h("span", { class: "tag dealer", title: t("table.dealer") }, t("table.dealerShort")),
          this.lastCapturerTag(seat)),
        h("div", { class: "opponent-body" },
          h("div", { class: "mini-hand", "aria-label": tn("table.handSize", size) },
            Array.from({ length: size }, () => h("span", { class: "mini-card" }, cardSvg(null))),
            h("span", { class: "count" }, size)),
          this.renderCaptured(this.sideOf(seat))),
        h("span", { class: "thinking" }, view.turn === seat ? t("table.playing") : ""),
        this.talkBubble(seat)));
    }
    return h("ul", { class: "opponents", "aria-label": t("table.opponents") }, boxes);
  },
};
