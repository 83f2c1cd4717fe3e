// Table talk (docs/protocol.md, `say` and `said`): a player says one of a few fixed phrases by
// its id, and every page at the table shows it in its own language, as a bubble by the
// speaker's name for a few seconds (and to screen readers). The talk button in the top line
// opens the phrases (for players, when the table allows talk) and the "Mute table talk"
// switch, remembered per table in this browser (muted, only your own phrases show). Phrases are not kept: a page that reloads sees
// only those said after. Methods of TableScreen (table.js).
import { announce, h } from "./dom.js";
import { t } from "./i18n.js";

/** Every phrase's id, in the order they are offered (server/talk.py's PHRASES). */
export const PHRASES = ["good-luck", "well-played", "nice-kseri", "thanks", "oops", "good-game"];

const BUBBLE_MS = 8000;
const SVG_NS = "http://www.w3.org/2000/svg";

/** A speech bubble (drawn, so it shows without an emoji font). */
function bubbleIcon() {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", "icon-svg");
  svg.setAttribute("aria-hidden", "true");
  svg.innerHTML = '<path d="M4 4h16a1 1 0 0 1 1 1v10a1 1 0 0 1-1 1H10l-5 4v-4H4a1 1 0 0 1-1-1V5a1 1 0 0 1 1-1z" fill="currentColor"/>';
  return svg;
}

function muteKey(tableId) {
  return `kseri.talk.muted.${tableId}`;
}

export const talkMethods = {
  /** Whether this browser muted the talk at this table. */
  talkMuted() {
    return localStorage.getItem(muteKey(this.tableId)) === "1";
  },

  setTalkMuted(muted) {
    if (muted) localStorage.setItem(muteKey(this.tableId), "1");
    else localStorage.removeItem(muteKey(this.tableId));
    if (muted) this.bubbles = { [this.seat]: this.bubbles[this.seat] };
    this.render();
  },

  /** A `said` message: show it by the speaker's name, unless talk is muted here and someone
   * else said it (your own phrase still shows: it was sent). */
  onSaid(message) {
    if ((this.talkMuted() && message.seat !== this.seat) || !PHRASES.includes(message.phrase)) return;
    const text = t(`talk.phrase.${message.phrase}`);
    this.bubbles = this.bubbles || {};
    const shown = { phrase: message.phrase, until: Date.now() + BUBBLE_MS };
    this.bubbles[message.seat] = shown;
    announce(t("talk.said", { name: this.nameOf(message.seat), phrase: text }));
    this.render();
    setTimeout(() => {
      if (this.bubbles[message.seat] === shown) {
        delete this.bubbles[message.seat];
        if (this.connection) this.render();
      }
    }, BUBBLE_MS);
  },

  say(phrase) {
    this.talkOpen = false;
    this.connection.send({ type: "say", phrase });
    this.render();
    const button = document.getElementById("talk-button");
    if (button) button.focus();
  },

  /** The phrase ``seat`` said a moment ago, as a bubble (null: none). */
  talkBubble(seat) {
    const shown = this.bubbles && this.bubbles[seat];
    if (!shown || shown.until < Date.now()) return null;
    return h("span", { class: "talk-bubble", "data-seat": seat, "data-phrase": shown.phrase }, t(`talk.phrase.${shown.phrase}`));
  },

  /** The top line's Talk button. */
  renderTalkButton() {
    const open = Boolean(this.talkOpen);
    return h("button", {
      type: "button", class: "small icon", id: "talk-button", "aria-expanded": open ? "true" : "false", "aria-controls": "talk-menu",
      title: t("talk.button"), "aria-label": t("talk.button"),
      onclick: () => { this.talkOpen = !open; this.render(); },
    }, bubbleIcon());
  },

  /** The phrases and the mute switch, under the top line while open. */
  renderTalkMenu() {
    if (!this.talkOpen) return null;
    const muted = this.talkMuted();
    const canSay = this.seat !== null && this.talkAllowed !== false;
    const close = (event) => {
      if (event.key !== "Escape") return;
      this.talkOpen = false;
      this.render();
      document.getElementById("talk-button").focus();
    };
    return h("div", { class: "talk-menu", id: "talk-menu", role: "group", "aria-label": t("talk.button"), onkeydown: close },
      canSay ? h("div", { class: "phrases" }, PHRASES.map((phrase) =>
        h("button", { type: "button", class: "phrase", id: `say-${phrase}`, "data-phrase": phrase, onclick: () => this.say(phrase) },
          t(`talk.phrase.${phrase}`))))
        : h("p", { class: "talk-note" }, this.seat === null ? t("talk.watching") : t("talk.off")),
      h("label", { class: "talk-mute" },
        h("input", { type: "checkbox", id: "talk-mute", checked: muted, onchange: (event) => this.setTalkMuted(event.target.checked) }),
        h("span", {}, t("talk.mute"))));
  },
};
