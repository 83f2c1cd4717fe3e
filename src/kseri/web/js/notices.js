// "Your turn" when the page is not looked at (docs/web.md): while the tab is hidden, a turn
// that comes to this player, a quick-pairing game that starts, a challenge received (or, from
// other pages, a tournament round starting: announce()) is told on four channels, each of which
// the player may turn off (the notices' settings, remembered on this device): the page's title,
// the tab's icon badge (navigator.setAppBadge where the browser has it, else a dot drawn on the
// favicon), a sound (when sounds are on at all), and a system notification if the player
// allowed it. Permission is asked only from the player's own tap (the bell, or the notification
// switch of the settings), never on load. Back in front, the title and the badge are cleared.
import { h } from "./dom.js";
import { sound } from "./effects.js";
import { t } from "./i18n.js";

const KEY = "kseri.notify";
const CHANNELS_KEY = "kseri.notices";
const CHALLENGE_POLL_MS = 20000;

/** The channels besides the notification, each on unless turned off in the settings. */
export const CHANNELS = ["title", "badge", "sound"];

/** A bell, crossed out when notifications are off (drawn, so it shows without an emoji font). */
export function bellIcon(on) {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", "icon-svg");
  svg.setAttribute("aria-hidden", "true");
  const cross = on ? "" : `<path d="M4 4l16 16" stroke="currentColor" stroke-width="2" stroke-linecap="round"/>`;
  svg.innerHTML = `<path d="M6 16V11a6 6 0 0 1 12 0v5l2 2H4z" fill="currentColor"/><path d="M10 20a2 2 0 0 0 4 0" fill="currentColor"/>${cross}`;
  return svg;
}

/** Whether the browser can show notifications at all. */
export function notificationsSupported() {
  return typeof Notification !== "undefined";
}

/** Whether the player turned notifications on and the browser allows them. */
export function notificationsOn() {
  return notificationsSupported() && localStorage.getItem(KEY) === "1" && Notification.permission === "granted";
}

/** Turn notifications on (asking the browser, from the player's gesture) or off; whether on now. */
export async function setNotifications(on) {
  if (!on || !notificationsSupported()) {
    localStorage.setItem(KEY, "0");
    return false;
  }
  const permission = Notification.permission === "granted" ? "granted" : await Notification.requestPermission();
  localStorage.setItem(KEY, permission === "granted" ? "1" : "0");
  return permission === "granted";
}

/** The bell's tap: turn notifications off, or ask the browser (from this gesture) and turn them on. */
export async function toggleNotifications() {
  return setNotifications(!notificationsOn());
}

function channels() {
  try {
    return { ...JSON.parse(localStorage.getItem(CHANNELS_KEY)) };
  } catch {
    return {};
  }
}

/** Whether a channel ("title", "badge" or "sound") is on (the default) for this device. */
export function channelOn(channel) {
  return channels()[channel] !== false;
}

/** Turn a channel ("title", "badge" or "sound") on or off on this device. */
export function setChannel(channel, on) {
  localStorage.setItem(CHANNELS_KEY, JSON.stringify({ ...channels(), [channel]: on }));
}

/** The page's title: the plain one, "● Kseri" on one's turn, and a louder one while hidden. */
export function turnTitle(myTurn) {
  if (myTurn && document.hidden && channelOn("title")) return t("notice.titleHidden");
  return (myTurn ? "● " : "") + t("app.title");
}

// What the last announcement changed, to put back once the page is in front again.
const shown = { title: null, titleBefore: null, badge: false, favicon: null };

/** The favicon with a red dot (the badge where the browser has no setAppBadge). */
function faviconDot(on) {
  const link = document.querySelector('link[rel="icon"]');
  if (!link) return;
  if (on && shown.favicon === null) {
    shown.favicon = link.getAttribute("href");
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect x="6" y="2" width="44" height="60" rx="6" fill="#fff" stroke="#1b5e20" stroke-width="4"/><circle cx="48" cy="16" r="15" fill="#d32f2f"/></svg>`;
    link.setAttribute("href", `data:image/svg+xml,${encodeURIComponent(svg)}`);
    link.dataset.badge = "1";
  } else if (!on && shown.favicon !== null) {
    link.setAttribute("href", shown.favicon);
    delete link.dataset.badge;
    shown.favicon = null;
  }
}

function setBadge() {
  shown.badge = true;
  if (navigator.setAppBadge) navigator.setAppBadge().catch(() => faviconDot(true));
  else faviconDot(true);
}

function clearBadge() {
  if (!shown.badge) return;
  shown.badge = false;
  if (navigator.clearAppBadge) navigator.clearAppBadge().catch(() => {});
  faviconDot(false);
}

document.addEventListener("visibilitychange", () => {
  if (document.hidden) return;
  clearBadge();
  if (shown.title !== null && document.title === shown.title) document.title = shown.titleBefore;
  shown.title = null;
});

/** Tell a player who is not looking, on each channel that is on: `kind` names it ("turn",
 *  "paired", "challenge", "round", …: the notification's tag is "kseri-" + kind, and a turn
 *  plays the turn sound, anything else the notice sound). Nothing while the page is in front;
 *  returns whether it was told. */
export function announce(kind, title, body) {
  if (!document.hidden) return false;
  if (channelOn("title")) {
    if (shown.title === null) shown.titleBefore = document.title;
    document.title = title;
    shown.title = title;
  }
  if (channelOn("badge")) setBadge();
  if (channelOn("sound")) sound(kind === "turn" ? "turn" : "notice");
  if (notificationsOn()) {
    try {
      const note = new Notification(title, { body, tag: `kseri-${kind}`, icon: "/static/cards/icon.svg" });
      note.onclick = () => {
        window.focus();
        note.close();
      };
    } catch {
      // some browsers show notifications only from a service worker: the other channels say it
    }
  }
  return true;
}

/** announce() with the notification's whole tag ("kseri-" + kind) given. */
export function notify(title, body, tag) {
  announce(tag.replace(/^kseri-/, ""), title, body);
}

/** Watches one table's turn: announces the moment it becomes this player's while hidden. */
export class TurnNotices {
  constructor() {
    this.wasMyTurn = false;
    this.onVisible = () => {
      if (!document.hidden) document.title = turnTitle(this.wasMyTurn);
    };
    document.addEventListener("visibilitychange", this.onVisible);
  }

  /** Called with each state: whether it is this player's turn now, and the table's words for it. */
  update(myTurn, body) {
    if (myTurn && !this.wasMyTurn) announce("turn", t("notice.titleHidden"), body);
    this.wasMyTurn = myTurn;
  }

  destroy() {
    document.removeEventListener("visibilitychange", this.onVisible);
  }
}

/** While the page is hidden, look for new challenge invitations every 20 s (`load`: the
 *  signed-in player's invitations, challenges.js) and announce each new one. Those there when
 *  the page was hidden are not news; nothing is asked while it is in front. */
export function watchChallenges(load) {
  const known = new Set();
  let timer = null;
  const look = async (tell) => {
    for (const invitation of await load()) {
      if (known.has(invitation.id)) continue;
      known.add(invitation.id);
      if (tell) announce("challenge", t("notice.challenge"), t("notice.challengeBody", { name: invitation.author.name }));
    }
  };
  const follow = async () => {
    clearInterval(timer);
    timer = null;
    if (!document.hidden) return;
    known.clear();
    await look(false);
    if (document.hidden && timer === null) timer = setInterval(() => look(true), CHALLENGE_POLL_MS);
  };
  document.addEventListener("visibilitychange", follow);
  follow();
}

/** The notices' settings: a switch for each channel, remembered on this device; the
 *  notification's switch asks the browser's permission from the player's tap. */
export function openNoticeSettings(onChange = () => {}) {
  const line = (id, label, checked, onchange) => h("label", { class: "check" },
    h("input", { type: "checkbox", id, checked, onchange }), " ", label);
  const status = h("p", { class: "muted", role: "status", id: "notice-settings-status" });
  const dialog = h("dialog", { class: "notice-settings", id: "notice-settings", "aria-labelledby": "notice-settings-title" },
    h("h2", { id: "notice-settings-title" }, t("notice.settings")),
    h("p", {}, t("notice.settingsHelp")),
    CHANNELS.map((channel) => line(`notice-${channel}`, t(`notice.channel.${channel}`), channelOn(channel),
      (e) => { setChannel(channel, e.target.checked); onChange(); })),
    notificationsSupported() && line("notice-notification", t("notice.channel.notification"), notificationsOn(), async (e) => {
      const on = await setNotifications(e.target.checked);
      e.target.checked = on;
      status.textContent = e.target.checked !== on || (!on && Notification.permission === "denied") ? t("notice.blocked") : "";
      onChange();
    }),
    status,
    h("form", { method: "dialog" }, h("button", { type: "submit", class: "primary", id: "notice-settings-close" }, t("notice.close"))));
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  return dialog;
}
