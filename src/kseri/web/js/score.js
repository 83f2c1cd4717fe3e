// The score panels: a round's breakdown per side (point cards, majority, kseris, bonuses) with
// the running totals, and the match's end (winner, every round, the deal checks, rematch,
// record download and replay).
import { cardName, cardShort } from "./cards.js";
import { h } from "./dom.js";
import { canVerify, verifyRounds } from "./fairness.js";
import { t, tn } from "./i18n.js";

const KSERI_KINDS = new Set(["kseri", "jack-kseri", "double-kseri"]);

/** A side's round breakdown grouped into point cards, majority, kseris and other bonuses. */
function groupBreakdown(items) {
  const groups = { cards: [], cardPoints: 0, majority: 0, kseris: [], kseriPoints: 0, bonuses: [], bonusPoints: 0 };
  for (const item of items) {
    if (item.kind === "card") {
      groups.cards.push(item.card);
      groups.cardPoints += item.points;
    } else if (item.kind === "majority") groups.majority += item.points;
    else if (KSERI_KINDS.has(item.kind)) {
      groups.kseris.push(item);
      groups.kseriPoints += item.points;
    } else {
      groups.bonuses.push(item);
      groups.bonusPoints += item.points;
    }
  }
  return groups;
}

function breakdownTable(screen, result, totals, caption) {
  const sides = screen.sides();
  const groups = Array.from({ length: sides }, (_, side) => groupBreakdown(result.breakdown[side] || []));
  const row = (label, cell) => h("tr", {}, h("th", { scope: "row" }, label), groups.map((g, side) => h("td", {}, cell(g, side))));
  return h("table", { class: "breakdown" },
    h("caption", { class: "visually-hidden" }, caption),
    h("thead", {}, h("tr", {}, h("td", {}), groups.map((_, side) => h("th", { scope: "col" }, screen.sideName(side))))),
    h("tbody", {},
      row(t("score.cards"), (g, side) => h("span", {},
        h("strong", {}, g.cardPoints),
        h("span", { class: "muted" }, ` · ${tn("score.cardsCaptured", result.captured[side].length)}`),
        g.cards.length > 0 && h("span", { class: "card-list", "aria-label": g.cards.map(cardName).join(", ") }, g.cards.map(cardShort).join(" ")))),
      row(t("score.majority"), (g) => (g.majority ? h("strong", {}, g.majority) : "—")),
      row(t("score.kseris"), (g) => (g.kseris.length
        ? h("span", {}, h("strong", {}, g.kseriPoints), h("span", { class: "muted" }, ` · ${g.kseris.map((k) => `${t(`markName.${k.kind}`)} ${cardShort(k.card)}`).join(", ")}`))
        : "—")),
      groups.some((g) => g.bonuses.length) && row(t("score.bonuses"), (g) => (g.bonuses.length
        ? h("span", {}, h("strong", {}, g.bonusPoints), h("span", { class: "muted" }, ` · ${g.bonuses.map((b) => t(`markName.${b.kind}`)).join(", ")}`))
        : "—")),
      h("tr", { class: "round-total" }, h("th", { scope: "row" }, t("score.round")), result.points.map((p) => h("td", {}, h("strong", {}, p)))),
      h("tr", { class: "match-total" }, h("th", { scope: "row" }, t("score.total")), totals.map((p) => h("td", {}, h("strong", {}, p))))));
}

/** When the round just ended made the target rise (several sides passed it: the Greek
 * escalation), the old and the new target ({target, next}); otherwise null. */
export function escalation(screen) {
  const view = screen.view;
  const rules = view.rules;
  const result = view.round_results[view.round_results.length - 1];
  if (!result || rules.target_rule !== "escalate" || view.target <= rules.target) return null;
  const before = view.target - rules.escalation;
  const passed = (totals) => totals.filter((total) => total >= before).length >= 2;
  const earlier = view.totals.map((total, side) => total - result.points[side]);
  return passed(view.totals) && !passed(earlier) ? { target: before, next: view.target } : null;
}

/** The panel after a round: its breakdown and the totals against the target. */
export function renderRoundResult(screen) {
  const view = screen.view;
  const result = view.round_results[view.round_results.length - 1];
  const rise = escalation(screen);
  return h("div", { class: "round-result" },
    h("h2", { id: "panel-title" }, t("round.title", { n: view.round_results.length })),
    rise && h("p", { class: "escalated", id: "escalated", role: "status" }, t("round.escalated", rise)),
    result ? breakdownTable(screen, result, view.totals, t("round.title", { n: view.round_results.length })) : null,
    h("p", { class: "target-line" }, t("score.target", { target: view.target })),
    fairnessSection(screen));
}

function fairnessSection(screen) {
  const revealed = (screen.fairness && screen.fairness.revealed) || [];
  if (!revealed.length) return null;
  if (!canVerify()) {
    return h("section", { class: "fairness", "aria-labelledby": "fairness-title" },
      h("h3", { id: "fairness-title" }, t("fair.title")),
      h("p", {}, t("fair.cannot")),
      h("ul", {}, revealed.map((r) => h("li", {}, t("fair.round", { n: r.round + 1 }), ": ", h("code", {}, r.deal_seed)))));
  }
  const key = revealed.map((r) => r.round).join(",");
  if (screen.fairnessKey !== key) {
    screen.fairnessKey = key;
    screen.fairnessResults = null;
    verifyRounds(revealed, screen.commitments()).then((results) => {
      if (screen.fairnessKey !== key) return;
      screen.fairnessResults = results;
      screen.render();
    });
  }
  const results = screen.fairnessResults;
  const summary = results === null ? t("fair.checking")
    : results.every((r) => r.status === "ok") ? t("fair.allOk")
      : results.some((r) => r.status.startsWith("bad")) ? t("fair.someBad") : t("fair.someUnseen");
  return h("details", { class: "fairness", id: "fairness", open: screen.fairnessOpen, ontoggle: (e) => { screen.fairnessOpen = e.target.open; } },
    h("summary", { id: "fairness-title", "data-status": results === null ? "checking" : summary === t("fair.allOk") ? "ok" : "problem" }, summary),
    h("p", { class: "muted" }, t("fair.help")),
    results === null
      ? h("p", { role: "status" }, t("fair.checking"))
      : h("ul", { class: "fair-list" }, results.map((r) => h("li", { class: `fair-${r.status}`, "data-status": r.status },
        h("span", { class: "fair-icon", "aria-hidden": "true" }, r.status === "ok" ? "✓" : r.status === "unseen" ? "?" : "✗"),
        " ", t("fair.round", { n: r.round + 1 }), ": ", t(`fair.${r.status}`),
        h("details", {}, h("summary", {}, t("fair.details")),
          h("dl", {},
            h("dt", {}, t("fair.commitment")), h("dd", {}, h("code", {}, r.commitment || "—")),
            h("dt", {}, t("fair.secret")), h("dd", {}, h("code", {}, r.secret)),
            h("dt", {}, t("fair.cut")), h("dd", { class: "fair-cut" }, h("code", {}, r.cut || "—")),
            h("dt", {}, t("fair.seed")), h("dd", {}, h("code", {}, r.seed))))))));
}

/** The panel at the end of the match. */
export function renderMatchEnd(screen, actions) {
  const view = screen.view;
  const winner = view.winner;
  const mine = screen.seat !== null && winner !== null && screen.sideOf(screen.seat) === winner;
  const heading = winner === null ? t("end.over") : mine ? t("end.youWin") : t("end.wins", { side: screen.sideName(winner) });
  const last = view.round_results[view.round_results.length - 1];
  const sides = screen.sides();
  const running = Array(sides).fill(0);
  const history = view.round_results.map((result, index) => {
    result.points.forEach((p, side) => { running[side] += p; });
    return h("tr", {}, h("th", { scope: "row" }, t("fair.round", { n: index + 1 })),
      result.points.map((p, side) => h("td", {}, `${p} `, h("span", { class: "muted" }, `(${running[side]})`))));
  });
  return h("div", { class: "match-end" },
    h("h2", { id: "panel-title", class: mine ? "win" : "" }, heading),
    screen.history && screen.history.resigned !== null && h("p", { class: "resigned", id: "resigned-line" },
      screen.history.resigned === screen.seat ? t("end.youResigned") : t("end.resigned", { name: screen.nameOf(screen.history.resigned) })),
    h("p", { class: "final-score" }, Array.from({ length: sides }, (_, side) => `${screen.sideName(side)} ${view.totals[side]}`).join(" · ")),
    screen.renderRatingChange(),
    last ? breakdownTable(screen, last, view.totals, t("round.title", { n: view.round_results.length })) : null,
    view.round_results.length > 1 && h("details", { class: "history" },
      h("summary", {}, t("end.allRounds")),
      h("table", { class: "breakdown" },
        h("thead", {}, h("tr", {}, h("td", {}), Array.from({ length: sides }, (_, side) => h("th", { scope: "col" }, screen.sideName(side))))),
        h("tbody", {}, history))),
    fairnessSection(screen),
    h("div", { class: "row end-actions" },
      (screen.seat !== null || screen.passPlay) && h("button", { type: "button", class: "primary big", id: "rematch", onclick: actions.rematch },
        screen.table.rematch ? t("end.joinRematch") : t("end.rematch")),
      h("a", { class: "button", id: "download-record", href: `/api/tables/${screen.tableId}/record`, download: `kseri-${screen.tableId}.json` }, t("end.download")),
      h("button", { type: "button", id: "end-analyse", onclick: actions.analyse }, t("end.analyse")),
      h("button", { type: "button", id: "watch-replay", onclick: actions.replay }, t("end.replay")),
      h("button", { type: "button", id: "end-puzzles", onclick: actions.puzzles }, t("end.puzzles")),
      h("a", { class: "button", href: "/", id: "back-to-lobby" }, t("table.backToLobby"))));
}
