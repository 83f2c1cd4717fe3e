// The table's controls: the top line (round, whose turn, the clock, the connection, Rules,
// sound, Resign, Leave), the notices, and the panels between rounds, at the end and while
// waiting for players (Next round, the cut, Rematch, the invitation). Methods of TableScreen.
import { api, heldSeat, holdSeat } from "./api.js";
import { announce, h, navigate } from "./dom.js";
import { setSoundOn, soundOn } from "./effects.js";
import { t } from "./i18n.js";
import { bellIcon, notificationsOn, notificationsSupported, openNoticeSettings, toggleNotifications } from "./notices.js";
import { seatName } from "./lobby.js";
import { seatBlocks } from "./moderation.js";
import { puzzlesFromGame } from "./puzzles.js";
import { openRulesHelp } from "./rules-help.js";
import { renderMatchEnd, renderRoundResult } from "./score.js";

const SVG_NS = "http://www.w3.org/2000/svg";

/** A loudspeaker, crossed out when muted (drawn, so it shows without an emoji font). */
function speakerIcon(muted) {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", "icon-svg");
  svg.setAttribute("aria-hidden", "true");
  const waves = muted ? "M16 9l6 6M22 9l-6 6" : "M16 8.5a5 5 0 0 1 0 7M18.5 6a8.5 8.5 0 0 1 0 12";
  svg.innerHTML = `<path d="M3 9h4l5-4v14l-5-4H3z" fill="currentColor"/><path d="${waves}" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"/>`;
  return svg;
}

/** The sound's switch (on/off, kept by effects.js), `redraw` called after each switch; the
 *  online and the offline tables' (offline.js). */
export function soundButton(redraw) {
  const muted = !soundOn();
  return h("button", {
    type: "button", class: "small icon", id: "sound-button", "aria-pressed": muted ? "false" : "true", title: t("sound.toggle"), "aria-label": t("sound.toggle"),
    onclick: () => { setSoundOn(muted); redraw(); },
  }, speakerIcon(muted));
}

/** A cogwheel: the notices' settings. */
function gearIcon() {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", "icon-svg");
  svg.setAttribute("aria-hidden", "true");
  svg.innerHTML = '<circle cx="12" cy="12" r="3.2" fill="none" stroke="currentColor" stroke-width="2"/><path d="M12 2.5v3M12 18.5v3M2.5 12h3M18.5 12h3M5.3 5.3l2.1 2.1M16.6 16.6l2.1 2.1M5.3 18.7l2.1-2.1M16.6 7.4l2.1-2.1" stroke="currentColor" stroke-width="2.4" stroke-linecap="round"/>';
  return svg;
}

/** A stopwatch (drawn: Debian's Chromium fonts have no glyph for ⏱). */
function stopwatchIcon() {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", "icon-svg clock-icon");
  svg.setAttribute("aria-hidden", "true");
  svg.innerHTML = '<circle cx="12" cy="14" r="7.5" fill="none" stroke="currentColor" stroke-width="2"/><path d="M12 14V9.5M10 3h4M12 3v3.5M18 7.5l1.5-1.5" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"/>';
  return svg;
}

export const controlMethods = {
  renderTopline() {
    const view = this.view;
    let status;
    if (this.table.status === "waiting") status = t("table.waitingStatus");
    else if (view.phase === "playing" && view.turn !== null) {
      status = view.turn === this.seat ? t("table.yourTurn") : t("table.theirTurn", { name: this.nameOf(view.turn) });
    } else if (view.phase === "round-over") status = t("table.roundOver");
    else status = t("table.matchOver");
    const playing = this.table.status === "playing" && this.seat !== null && !this.passPlay;
    return h("div", { class: "topline" },
      h("span", { class: "round-label" }, t("table.round", { n: view.round + 1 })),
      h("span", { class: "turn-status", id: "turn-status" }, status),
      this.renderClock(),
      this.renderConnectionBadge(),
      h("span", { class: "table-actions" },
        h("button", { type: "button", class: "small icon", id: "rules-button", title: t("rulesHelp.open"), "aria-label": t("rulesHelp.open"), onclick: () => openRulesHelp(this.rules(), view.target) },
          h("span", { "aria-hidden": "true" }, "?"), h("span", { class: "wide-only" }, t("rulesHelp.short"))),
        this.renderTalkButton(),
        this.renderQuizButton(),
        soundButton(() => this.render()),
        playing && h("button", { type: "button", class: "small icon", id: "resign-button", title: t("resign.button"), "aria-label": t("resign.button"), onclick: () => this.confirmResign() },
          h("span", { "aria-hidden": "true" }, "⚑"), h("span", { class: "wide-only" }, t("resign.short"))),
        this.seat !== null && !this.passPlay && notificationsSupported() && h("button", {
          type: "button", class: "small icon", id: "notify-button", "aria-pressed": notificationsOn() ? "true" : "false",
          title: t("notice.toggle"), "aria-label": t("notice.toggle"),
          onclick: async () => { await toggleNotifications(); this.render(); },
        }, bellIcon(notificationsOn())),
        this.seat !== null && !this.passPlay && h("button", {
          type: "button", class: "small icon", id: "notice-settings-button", title: t("notice.settings"), "aria-label": t("notice.settings"),
          onclick: () => openNoticeSettings(() => this.render()),
        }, gearIcon()),
        h("button", { type: "button", class: "small icon", id: "leave-button", title: t("leave.button"), "aria-label": t("leave.button"), onclick: () => this.leave() },
          h("span", { "aria-hidden": "true" }, t("leave.short")))),
      this.renderTalkMenu());
  },

  /** The seconds left for the play due, from the server's deadline (so a reload keeps the count). */
  clockLeft() {
    if (this.turnEnds === null) return null;
    return Math.max(0, Math.ceil((this.turnEnds - Date.now()) / 1000));
  },

  renderClock() {
    const left = this.clockLeft();
    if (left === null) return null;
    // Whose clock it is: the player due to play (the clock counts down their play).
    const turn = this.view ? this.view.turn : null;
    const who = turn !== null && turn !== undefined ? this.nameOf(turn) : null;
    const label = t("table.clockLeft", { n: left });
    return h("span", { class: `clock${left <= 5 ? " low" : ""}`, id: "clock", role: "timer", "data-left": left, "aria-label": who ? `${who}: ${label}` : label },
      stopwatchIcon(), h("span", { "aria-hidden": "true" }, who ? `${who} ${left}s` : `${left}s`));
  },

  tickClock() {
    const node = this.root.querySelector("#clock");
    if (node) node.replaceWith(this.renderClock() || "");
  },

  renderConnectionBadge() {
    return h("span", { class: `connection ${this.connectionStatus}`, id: "connection", role: "status" }, t(`connection.${this.connectionStatus}`));
  },

  renderConnection() {
    const badge = this.root.querySelector("#connection");
    if (badge) badge.replaceWith(this.renderConnectionBadge());
  },

  renderNoticeLine() {
    return h("span", { class: "notice", id: "notice", role: "alert" }, this.notice || "");
  },

  renderNotice() {
    const line = this.root.querySelector("#notice");
    if (line) line.replaceWith(this.renderNoticeLine());
    clearTimeout(this.noticeTimer);
    this.noticeTimer = setTimeout(() => {
      this.notice = "";
      const node = this.root.querySelector("#notice");
      if (node) node.textContent = "";
    }, 4000);
  },

  ready() {
    const cutInput = this.root.querySelector("#cut-text");
    const message = { type: "ready" };
    if (cutInput && cutInput.value.trim()) message.cut = cutInput.value.trim();
    if (this.connection.send(message)) {
      this.readyRound = this.view.round;
      this.cutText = "";
      this.cutOpen = false;
      this.render();
    }
  },

  async rematch() {
    if (this.passPlay) {
      await this.passPlayRematch();
      return;
    }
    const held = heldSeat(this.tableId);
    try {
      const created = await api("POST", `/api/tables/${this.tableId}/rematch`, undefined, held && held.token);
      holdSeat(created.table.id, created.seat, created.token);
      navigate(`/t/${created.table.id}`);
    } catch (error) {
      this.notice = t("error.rematch", { message: error.message });
      this.renderNotice();
    }
  },

  /** Back to the lobby; the seat stays this browser's (the lobby offers to continue), and at a
   * friend's table the stand-in plays for this seat after the grace period. */
  leave() {
    navigate("/");
  },

  /** Resign after a confirmation: the match ends, won by the other side, and is recorded so. */
  confirmResign() {
    const dialog = h("dialog", { class: "confirm-dialog", id: "resign-dialog", "aria-labelledby": "resign-title" },
      h("h2", { id: "resign-title" }, t("resign.title")),
      h("p", {}, t("resign.explain")),
      h("form", { method: "dialog", class: "row" },
        h("button", { type: "submit", class: "primary", id: "resign-confirm", value: "yes" }, t("resign.confirm")),
        h("button", { type: "submit", id: "resign-cancel", value: "no", autofocus: true }, t("resign.cancel"))));
    dialog.addEventListener("close", () => {
      dialog.remove();
      if (dialog.returnValue === "yes") this.resign();
    });
    document.body.append(dialog);
    dialog.showModal();
  },

  async resign() {
    const held = heldSeat(this.tableId);
    try {
      await api("POST", `/api/tables/${this.tableId}/resign`, undefined, held && held.token);
    } catch (error) {
      this.notice = t("error.resign", { message: error.message });
      this.renderNotice();
    }
  },

  renderPanel() {
    const view = this.view;
    const table = this.table;
    if (table.status === "waiting") return this.renderWaiting();
    if (view.phase === "round-over" || view.phase === "match-over") {
      const over = view.phase === "match-over";
      const key = `${over ? "match" : "round"}-${view.round}`;
      const body = over
        ? renderMatchEnd(this, {
          rematch: () => this.rematch(),
          replay: () => navigate(`/t/${this.tableId}#replay`),
          analyse: () => navigate(`/t/${this.tableId}#analysis`),
          puzzles: () => puzzlesFromGame(this.tableId),
        })
        : renderRoundResult(this);
      const mine = this.seat !== null ? this.table.seats[this.seat] : null;
      const waitingOthers = this.readyRound === view.round || Boolean(mine && mine.ready);
      return h("section", { class: "overlay-panel", role: "dialog", "aria-modal": "false", "aria-labelledby": "panel-title", "data-key": key },
        body,
        over && seatBlocks(this),
        !over && (this.seat !== null || this.passPlay) && h("div", { class: "ready-box" },
          this.fairness && this.fairness.cutter === this.seat && !waitingOthers && h("details", {
            class: "cut-box", id: "cut-box", open: this.cutOpen, ontoggle: (e) => { this.cutOpen = e.target.open; },
          },
          h("summary", {}, t("round.cut")),
          h("label", { class: "field" },
            h("span", { class: "visually-hidden" }, t("round.cut")),
            h("input", { id: "cut-text", type: "text", maxlength: 64, value: this.cutText || "", placeholder: t("round.cutPlaceholder"), oninput: (e) => { this.cutText = e.target.value; } }),
            h("small", {}, t("round.cutHelp")))),
          waitingOthers
            ? h("p", { class: "muted", role: "status" }, t("round.waitingOthers"), " ",
              this.table.seats.filter((s) => s.kind === "human" && !s.ready).map((s) => seatName(s, this.table.seats)).join(", "))
            : h("button", { type: "button", class: "primary big", id: "next-round", onclick: () => this.ready() }, t("round.next"))));
    }
    return null;
  },

  renderWaiting() {
    const link = new URL(this.table.invite || `/t/${this.tableId}`, location.href).href;
    const copy = async () => {
      try {
        await navigator.clipboard.writeText(link);
        this.notice = t("waiting.copied");
      } catch {
        this.notice = t("waiting.copyFailed");
      }
      announce(this.notice);
      this.renderNotice();
    };
    const share = navigator.share ? () => navigator.share({ title: t("app.title"), text: t("waiting.shareText"), url: link }).catch(() => {}) : null;
    return h("section", { class: "overlay-panel waiting-panel", role: "dialog", "aria-modal": "false", "aria-labelledby": "panel-title", "data-key": "waiting" },
      h("h2", { id: "panel-title" }, t("waiting.title")),
      h("p", {}, t("waiting.intro")),
      h("div", { class: "invite" },
        h("input", { type: "text", id: "invite-link", readonly: true, value: link, "aria-label": t("waiting.link"), onfocus: (e) => e.target.select() }),
        h("button", { type: "button", class: "primary", id: "copy-invite", onclick: copy }, t("waiting.copy")),
        share && h("button", { type: "button", id: "share-invite", onclick: share }, t("waiting.share"))),
      h("ul", { class: "seat-list" }, this.table.seats.map((s) => h("li", { class: s.taken ? "taken" : "open" },
        seatName(s, this.table.seats), s.seat === this.seat ? ` (${t("seat.you")})` : "", s.taken && s.kind === "human" && !s.connected ? ` — ${t("waiting.away")}` : ""))));
  },
};
