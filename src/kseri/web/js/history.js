// The round's plays, newest last: who played what, what it took, the marks it scored, a card the
// server played for someone (clock ran out, or away), and the last sweep at the round's end.
// Drawn from the state's `history` (docs/protocol.md), so a reload shows the same list.
import { cardName, cardShort } from "./cards.js";
import { h } from "./dom.js";
import { t, tn } from "./i18n.js";

/** The list of the round's plays for a table screen (its history, names and seat). */
export function renderHistory(screen) {
  const history = screen.history;
  const plays = history ? history.plays : [];
  const items = plays.map((play, index) => {
    const marks = play.marks.map((m) => t(`mark.${m.kind}`, { points: m.points }));
    const took = play.taken > 0 ? tn("history.took", play.taken) : "";
    const auto = play.auto ? t(`history.auto.${play.auto}`) : "";
    const spoken = [t("history.spoken", { name: screen.nameOf(play.seat), card: cardName(play.card) }), took, ...marks, auto].filter(Boolean).join(", ");
    return h("li", { class: `play-item${play.taken ? " took" : ""}${marks.length ? " marked" : ""}${play.seat === screen.seat ? " mine" : ""}`, "data-index": index, "aria-label": spoken },
      h("span", { class: "play-who", "aria-hidden": "true" }, screen.nameOf(play.seat)),
      h("span", { class: `play-card suit-${play.card[1]}`, "aria-hidden": "true" }, cardShort(play.card)),
      took && h("span", { class: "play-took", "aria-hidden": "true" }, `→ ${took}`),
      marks.map((m) => h("span", { class: "play-mark", "aria-hidden": "true" }, m)),
      auto && h("span", { class: "play-auto", "aria-hidden": "true", title: auto }, "⏱ ", auto));
  });
  const sweep = history && history.sweep;
  return h("section", { class: "round-plays", id: "round-plays", "aria-labelledby": "round-plays-title" },
    h("h2", { id: "round-plays-title" }, t("history.title"), " ", h("span", { class: "badge" }, plays.length)),
    plays.length
      ? h("ol", { class: "play-list", tabindex: "0", "aria-labelledby": "round-plays-title" }, items)
      : h("p", { class: "muted" }, t("history.none")),
    sweep && h("p", { class: "sweep-line", id: "sweep-line" },
      tn(sweep.seat === screen.seat ? "event.sweepYou" : "event.sweep", sweep.cards, { name: screen.nameOf(sweep.seat) })));
}
