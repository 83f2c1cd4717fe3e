// "Your turn" when the page is not looked at (docs/web.md): while the tab is hidden, a turn
// that comes to this player (or a quick-pairing game that starts) changes the page's title and,
// if the player allowed it, shows a system notification. Permission is asked only from the
// player's own tap on the bell (never on load); the bell turns the notifications off again.
import { t } from "./i18n.js";

const KEY = "kseri.notify";

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

/** The bell's tap: turn notifications off, or ask the browser (from this gesture) and turn them on. */
export async function toggleNotifications() {
  if (notificationsOn()) {
    localStorage.setItem(KEY, "0");
    return false;
  }
  if (!notificationsSupported()) return false;
  const permission = Notification.permission === "granted" ? "granted" : await Notification.requestPermission();
  localStorage.setItem(KEY, permission === "granted" ? "1" : "0");
  return permission === "granted";
}

/** The page's title: the plain one, "● Kseri" on one's turn, and a louder one while hidden. */
export function turnTitle(myTurn) {
  if (myTurn && document.hidden) return t("notice.titleHidden");
  return (myTurn ? "● " : "") + t("app.title");
}

/** Tell a player who is not looking: the title now, a notification if allowed. */
export function notify(title, body, tag) {
  if (!document.hidden) return;
  document.title = title;
  if (!notificationsOn()) return;
  try {
    const shown = new Notification(title, { body, tag, icon: "/static/cards/icon.svg" });
    shown.onclick = () => {
      window.focus();
      shown.close();
    };
  } catch {
    // some browsers show notifications only from a service worker: the title says it anyway
  }
}

/** Watches one table's turn: announces the moment it becomes this player's while hidden. */
export class TurnNotices {
  constructor() {
    this.wasMyTurn = false;
    this.onVisible = () => {
      if (!document.hidden && document.title === t("notice.titleHidden")) document.title = turnTitle(this.wasMyTurn);
    };
    document.addEventListener("visibilitychange", this.onVisible);
  }

  /** Called with each state: whether it is this player's turn now, and the table's words for it. */
  update(myTurn, body) {
    if (myTurn && !this.wasMyTurn) notify(t("notice.titleHidden"), body, "kseri-turn");
    this.wasMyTurn = myTurn;
  }

  destroy() {
    document.removeEventListener("visibilitychange", this.onVisible);
  }
}
