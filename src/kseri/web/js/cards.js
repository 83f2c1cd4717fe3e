// Cards: parsing the protocol's ASCII names (TD, 2C, JS), their spoken names, and drawing
// them as inline SVG from one template and the shared shapes in cards/deck.svg.
import { t } from "./i18n.js";

export const RANKS = "23456789TJQKA";
export const SUITS = "CDHS";
const SVG_NS = "http://www.w3.org/2000/svg";

/** Load the suit shapes and the back pattern once into the page. */
export async function loadDeck() {
  const response = await fetch("/static/cards/deck.svg");
  const holder = document.createElement("div");
  // Not display:none: Chromium does not paint patterns defined inside a hidden element.
  holder.style.cssText = "position:absolute;width:0;height:0;overflow:hidden";
  holder.setAttribute("aria-hidden", "true");
  holder.innerHTML = await response.text();
  document.body.prepend(holder);
}

/** The rank and suit letters of a card such as "TD". */
function parseCard(code) {
  return { rank: code[0], suit: code[1] };
}

/** The rank as printed on a card: "10" for the ten. */
function rankText(rank) {
  return rank === "T" ? "10" : rank;
}

const SYMBOLS = { C: "♣", D: "♦", H: "♥", S: "♠" };

/** The short printed form, e.g. "10♦". */
export function cardShort(code) {
  const { rank, suit } = parseCard(code);
  return rankText(rank) + SYMBOLS[suit];
}

/** The spoken name, e.g. "10 of diamonds", in the page's language. */
export function cardName(code) {
  const { rank, suit } = parseCard(code);
  return t("card.name", { rank: t(`rank.${rank}`), suit: t(`suit.${suit}`) });
}

function el(name, attrs = {}) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  return node;
}

function suitUse(suit, x, y, size, flip = false) {
  const use = el("use", { href: `#suit-${suit}`, x, y, width: size, height: size });
  if (flip) use.setAttribute("transform", `rotate(180 ${x + size / 2} ${y + size / 2})`);
  return use;
}

function index(rank, suit, flip) {
  const group = el("g", flip ? { transform: "rotate(180 50 70)" } : {});
  const label = el("text", { x: 5, y: 31, class: "card-rank", "font-size": rank === "T" ? 27 : 31 });
  label.textContent = rankText(rank);
  group.append(label, suitUse(suit, 7, 35, 19));
  return group;
}

/**
 * A card face (or its back when code is null) as an <svg> element, 100x140 units, scaled by
 * CSS. The element is decorative: the control that holds it carries the card's name.
 */
export function cardSvg(code) {
  const svg = el("svg", { viewBox: "0 0 100 140", class: "card-svg", "aria-hidden": "true", focusable: "false" });
  if (code === null || code === undefined) {
    svg.classList.add("card-back");
    svg.append(
      el("rect", { x: 1, y: 1, width: 98, height: 138, rx: 9, class: "card-edge", fill: "#fff" }),
      el("rect", { x: 7, y: 7, width: 86, height: 126, rx: 5, fill: "url(#card-back-lattice)" }),
    );
    return svg;
  }
  const { rank, suit } = parseCard(code);
  svg.classList.add(`suit-${suit}`);
  svg.append(el("rect", { x: 1, y: 1, width: 98, height: 138, rx: 9, class: "card-edge card-face" }));
  if ("JQK".includes(rank)) {
    svg.append(el("rect", { x: 30, y: 14, width: 40, height: 112, rx: 5, class: "court-frame" }));
    const letter = el("text", { x: 50, y: 87, class: "court-letter", "text-anchor": "middle", "font-size": 40 });
    letter.textContent = rank;
    svg.append(letter, suitUse(suit, 38, 22, 24), suitUse(suit, 38, 94, 24, true));
  } else if (rank === "A") {
    svg.append(suitUse(suit, 30, 42, 56));
  } else {
    svg.append(suitUse(suit, 34, 46, 48));
  }
  svg.append(index(rank, suit, false), index(rank, suit, true));
  return svg;
}
