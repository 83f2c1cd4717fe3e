// The rules help: the rule set being played, in words, with its scoring table. Opened from the
// table (the "?" button) and from the lobby; a modal <dialog> (Escape closes it).
import { cardShort } from "./cards.js";
import { h } from "./dom.js";
import { t, translated } from "./i18n.js";

const RANK_KEYS = { A: "rank.A", K: "rank.K", Q: "rank.Q", J: "rank.J", T: "rank.T" };

/** A preset's name in words, or a rules spec (the server's "greek,target=1,target_rule=higher-wins")
 * as the preset's name and its options in words: "Greek (Target score: 1; When both reach the
 * target: The higher score wins)". The server's ids stand where the page has no words for them. */
export function presetName(spec) {
  const [name, ...options] = spec.split(",").map((part) => part.trim()).filter(Boolean);
  const named = translated(`preset.${name}`, name);
  return options.length ? `${named} (${options.map(optionText).join("; ")})` : named;
}

/** One option of a rules spec ("target=1") in words. */
function optionText(assignment) {
  const [key, value = ""] = assignment.split("=").map((part) => part.trim());
  const option = key.replaceAll("-", "_");
  const label = translated(`opt.${option}`, null);
  if (label === null) return assignment;
  if (value === "true") return label;
  if (value === "false" || value === "none") return `${label}: ${t("opt.off")}`;
  return `${label}: ${translated(`opt.${option}.${value}`, value)}`;
}

/** A card_points entry ("TD" a card, "A" a rank) in words. */
function pointCard(code) {
  if (code.length === 2) return cardShort(code);
  return RANK_KEYS[code] ? t(RANK_KEYS[code]) : code;
}

/** The rule set as a list of sentences and a scoring table. */
export function renderRules(rules, target = rules.target) {
  const sentences = [
    rules.partnerships ? t("rulesHelp.partners", { players: rules.players }) : t("rulesHelp.players", { players: rules.players }),
    rules.decks > 1 && t("rulesHelp.decks", { decks: rules.decks }),
    t("rulesHelp.deal", { batch: rules.batch_size, centre: rules.centre_size }),
    t(`rulesHelp.centre.${rules.centre_deal}`),
    t("rulesHelp.capture"),
    t(rules.jacks_capture_all ? "rulesHelp.jacksAll" : "rulesHelp.jacksRank"),
    t("rulesHelp.kseri", { points: rules.kseri_value }),
    rules.jack_kseri !== null ? t("rulesHelp.jackKseri", { points: rules.jack_kseri }) : t("rulesHelp.noJackKseri"),
    rules.double_kseri !== null && t("rulesHelp.doubleKseri", { points: rules.double_kseri }),
    !rules.kseri_on_last_card && t("rulesHelp.noLastKseri"),
    t("rulesHelp.lastSweep"),
    t("rulesHelp.target", { target }),
    rules.target_rule === "escalate"
      ? t("rulesHelp.escalate", { target, escalation: rules.escalation, next: target + rules.escalation })
      : t("rulesHelp.higherWins"),
  ].filter(Boolean);
  const rows = rules.card_points.map(([code, points]) => [pointCard(code), points]);
  if (rules.majority_bonus) rows.push([t(`rulesHelp.majority.${rules.majority_tie}`), rules.majority_bonus]);
  rows.push([t("rulesHelp.kseriRow"), rules.kseri_value]);
  if (rules.jack_kseri !== null) rows.push([t("rulesHelp.jackKseriRow"), rules.jack_kseri]);
  if (rules.double_kseri !== null) rows.push([t("rulesHelp.doubleKseriRow"), rules.double_kseri]);
  if (rules.last_capture_bonus) rows.push([t("opt.last_capture_bonus"), rules.last_capture_bonus]);
  if (rules.jacks_table_bonus) rows.push([t("opt.jacks_table_bonus"), rules.jacks_table_bonus]);
  if (rules.two_clubs_match_bonus) rows.push([t("opt.two_clubs_match_bonus"), rules.two_clubs_match_bonus]);
  return h("div", { class: "rules-text" },
    h("ul", {}, sentences.map((text) => h("li", {}, text))),
    h("table", { class: "breakdown scoring-table" },
      h("caption", {}, t("rulesHelp.scoring")),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("rulesHelp.what")), h("th", { scope: "col" }, t("rulesHelp.points")))),
      h("tbody", {}, rows.map(([what, points]) => h("tr", {}, h("th", { scope: "row" }, what), h("td", {}, points))))));
}

/** Open the rules help over the page. */
export function openRulesHelp(rules, target) {
  const dialog = h("dialog", { class: "rules-dialog", id: "rules-dialog", "aria-labelledby": "rules-title" },
    h("h2", { id: "rules-title" }, t("rulesHelp.title", { name: presetName(rules.name) })),
    renderRules(rules, target),
    h("form", { method: "dialog" }, h("button", { type: "submit", class: "primary", id: "rules-close" }, t("rulesHelp.close"))));
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
}
