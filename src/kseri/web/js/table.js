// A table: join or watch, then play. Each `state` message from the server (docs/protocol.md)
// is drawn in order: the hand, the centre pile with its top card and size, the opponents and
// their hand sizes, the stock, the sides' capture piles with kseri markers, whose turn it is,
// and the score against the target. Plays land on the pile with a short animation (none when
// the user prefers reduced motion) and are announced to screen readers.
import { api, ApiError, dropSeat, heldSeat, holdSeat, playerName, setPlayerName } from "./api.js";
import { cardName, cardShort, cardSvg, RANKS, SUITS } from "./cards.js";
import { TableConnection } from "./connection.js";
import { announce, h, navigate, reducedMotion } from "./dom.js";
import { celebrate, fly, setSoundOn, sound, soundOn, sweep } from "./effects.js";
import { renderHistory } from "./history.js";
import { t, tn } from "./i18n.js";
import { seatName } from "./lobby.js";
import { openRulesHelp, presetName, renderRules } from "./rules-help.js";
import { escalation, renderMatchEnd, renderRoundResult } from "./score.js";

const KSERI_KINDS = new Set(["kseri", "jack-kseri", "double-kseri"]);
const CAPTURE_HOLD_MS = 650;
const FLY_MS = 300;
const BACKLOG = 3; // more states than this waiting: draw them at once (a reconnection catching up)

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
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

export class TableScreen {
  constructor(root, tableId) {
    this.root = root;
    this.tableId = tableId;
    this.table = null;
    this.view = null;
    this.seq = null;
    this.turnEnds = null; // when the play due must be made, in this page's clock (ms), or null
    this.fairness = null;
    this.seat = null;
    this.connection = null;
    this.connectionStatus = "connecting";
    this.queue = [];
    this.draining = false;
    this.centreOverride = null;
    this.hint = null;
    this.showMemory = localStorage.getItem("kseri.memory") === "1";
    this.readyRound = null;
    this.sentSeq = null;
    this.startReadySent = false;
    this.notice = "";
    this.lastPlayText = "";
    this.history = null;
    this.holdPanel = false;
    this.animating = false; // a play is being shown: the hand waits until it is done
    this.panelKey = null;
    this.keyHandler = (event) => this.onKey(event);
    document.addEventListener("keydown", this.keyHandler);
  }

  // -- lifecycle ----------------------------------------------------------------------

  async start() {
    this.root.replaceChildren(h("p", { class: "loading" }, t("table.loading")));
    const held = heldSeat(this.tableId);
    if (held) {
      this.seat = held.seat;
      this.connect(held.token);
      return;
    }
    try {
      this.table = await api("GET", `/api/tables/${encodeURIComponent(this.tableId)}`);
    } catch (error) {
      this.root.replaceChildren(this.renderMissing(error));
      return;
    }
    const free = this.table.seats.some((s) => s.kind === "human" && !s.taken);
    if (free && this.table.status !== "finished") this.renderJoin();
    else this.connect(null);
  }

  destroy() {
    document.removeEventListener("keydown", this.keyHandler);
    if (this.connection) this.connection.close();
    clearInterval(this.clockTimer);
    document.title = t("app.title");
  }

  refresh() {
    if (this.connection) this.render();
    else if (this.table) this.renderJoin();
  }

  connect(token) {
    this.token = token;
    this.connection = new TableConnection(this.tableId, token, {
      message: (message) => this.onMessage(message),
      status: (status) => {
        this.connectionStatus = status;
        this.renderConnection();
      },
    });
    this.connection.open();
    this.render();
  }

  onMessage(message) {
    switch (message.type) {
      case "welcome":
        this.table = message.table;
        this.seat = message.seat;
        this.sentSeq = null;
        if (this.table.clock && !this.clockTimer) this.clockTimer = setInterval(() => this.tickClock(), 1000);
        this.render();
        break;
      case "presence":
        this.table = message.table;
        this.render();
        break;
      case "state":
        message.receivedAt = Date.now();
        this.queue.push(message);
        this.drain();
        break;
      case "hint":
        this.hint = message;
        this.render();
        announce(t("hint.best", { card: cardName(message.best) }));
        break;
      case "error":
        this.onError(message);
        break;
      default:
        break;
    }
  }

  onError(message) {
    if (message.code === "no-such-table") {
      dropSeat(this.tableId);
      this.connection.close();
      this.connection = null;
      this.root.replaceChildren(this.renderMissing(new ApiError(404, message.code, message.message)));
      return;
    }
    if (message.code === "bad-token") {
      dropSeat(this.tableId);
      this.connection.close();
      this.seat = null;
      this.connect(null);
      return;
    }
    this.sentSeq = null; // a refused play may be tried again
    this.notice = t(`error.${message.code}`) === `error.${message.code}` ? message.message : t(`error.${message.code}`);
    announce(this.notice);
    this.renderNotice();
  }

  async drain() {
    if (this.draining) return;
    this.draining = true;
    while (this.queue.length) {
      const message = this.queue.shift();
      await this.apply(message, this.queue.length > 0);
    }
    this.draining = false;
  }

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
    if (this.view && this.view.seat !== undefined && this.view.seat !== null) this.seat = this.view.seat;
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
          celebrate(kseri.kind, t(`mark.${kseri.kind}`, { points: kseri.points }));
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
    if (live && event && event.kind === "match-end") {
      const mine = this.seat !== null && this.sideOf(this.seat) === event.winner;
      sound(mine ? "win" : "matchEnd");
      celebrate(mine ? "win" : "match-end", mine ? t("end.youWin") : t("end.wins", { side: this.sideName(event.winner) }), 2600);
    }
    if (live && event && event.kind === "round-end") {
      const rise = escalation(this);
      if (rise) announce(t("round.escalated", rise));
    }
    if (live && this.myTurn() && !wasMyTurn && event) sound("turn");
    this.autoReady();
  }

  /** The captured pile of a seat's side (its box, or this player's own). */
  capturedPile(seat) {
    return this.root.querySelector(`[data-seat="${seat}"] .captured .pile-icon`)
      || this.root.querySelector(`.scoreboard [data-side="${this.sideOf(seat)}"] .pile-icon`);
  }

  autoReady() {
    if (this.seat === null || !this.table || this.table.status !== "waiting" || this.startReadySent) return;
    if (this.connection.send({ type: "ready" })) this.startReadySent = true;
  }

  // -- actions ------------------------------------------------------------------------

  myTurn() {
    return this.view && this.seat !== null && this.view.turn === this.seat && this.view.phase === "playing"
      && this.table.status === "playing" && !this.queue.length && !this.animating;
  }

  play(card) {
    if (!this.myTurn()) {
      this.notice = this.view && this.view.turn !== null ? t("table.notYourTurn") : t("table.noPlayNow");
      announce(this.notice);
      this.renderNotice();
      return;
    }
    if (this.sentSeq === this.seq) return; // one play per state: a double click sends one
    if (this.connection.send({ type: "play", card, seq: this.seq })) {
      this.sentSeq = this.seq;
    } else {
      this.notice = t("table.offline");
      this.renderNotice();
    }
  }

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
  }

  askHint() {
    this.connection.send({ type: "hint" });
  }

  async rematch() {
    const held = heldSeat(this.tableId);
    try {
      const created = await api("POST", `/api/tables/${this.tableId}/rematch`, undefined, held && held.token);
      holdSeat(created.table.id, created.seat, created.token);
      navigate(`/t/${created.table.id}`);
    } catch (error) {
      this.notice = t("error.rematch", { message: error.message });
      this.renderNotice();
    }
  }

  /** Back to the lobby; the seat stays this browser's (the lobby offers to continue), and at a
   * friend's table the stand-in plays for this seat after the grace period. */
  leave() {
    navigate("/");
  }

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
  }

  async resign() {
    const held = heldSeat(this.tableId);
    try {
      await api("POST", `/api/tables/${this.tableId}/resign`, undefined, held && held.token);
    } catch (error) {
      this.notice = t("error.resign", { message: error.message });
      this.renderNotice();
    }
  }

  onKey(event) {
    const target = event.target;
    if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT")) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const hand = this.view ? this.view.hand : [];
    if (/^[1-9]$/.test(event.key)) {
      const index = Number(event.key) - 1;
      if (index < hand.length) {
        event.preventDefault();
        this.play(hand[index]);
      }
      return;
    }
    const buttons = [...this.root.querySelectorAll(".hand .card-button")];
    const position = buttons.indexOf(document.activeElement);
    if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
      if (!buttons.length) return;
      event.preventDefault();
      const step = event.key === "ArrowRight" ? 1 : -1;
      const next = position < 0 ? 0 : (position + step + buttons.length) % buttons.length;
      buttons[next].focus();
    } else if ((event.key === "h" || event.key === "H") && this.table && this.table.casual) {
      this.askHint();
    }
  }

  // -- helpers ------------------------------------------------------------------------

  rules() {
    return this.view ? this.view.rules : this.table.rules;
  }

  sides() {
    const rules = this.rules();
    return rules.partnerships ? rules.players / 2 : rules.players;
  }

  sideOf(seat) {
    return seat % this.sides();
  }

  nameOf(seat) {
    if (seat === this.seat) return t("seat.you");
    const info = this.table && this.table.seats[seat];
    return info ? seatName(info, this.table.seats) : t("seat.player", { n: seat + 1 });
  }

  sideName(side) {
    const seats = [];
    for (let seat = 0; seat < this.rules().players; seat++) if (this.sideOf(seat) === side) seats.push(seat);
    const mine = this.seat !== null && seats.includes(this.seat);
    const ordered = mine ? [this.seat, ...seats.filter((s) => s !== this.seat)] : seats;
    return ordered.map((s) => this.nameOf(s)).join(" & ");
  }

  rememberCommitment() {
    if (!this.fairness || !this.fairness.commitment) return;
    const key = `kseri.commitments.${this.tableId}`;
    const known = JSON.parse(localStorage.getItem(key) || "{}");
    if (!(this.fairness.round in known)) {
      known[this.fairness.round] = this.fairness.commitment;
      localStorage.setItem(key, JSON.stringify(known));
    }
  }

  commitments() {
    return JSON.parse(localStorage.getItem(`kseri.commitments.${this.tableId}`) || "{}");
  }

  describe(event) {
    let text = "";
    if (event.kind === "play") {
      const mine = event.seat === this.seat;
      const key = event.auto ? (mine ? `event.autoYou.${event.auto}` : `event.auto.${event.auto}`) : mine ? "event.youPlayed" : "event.played";
      text = t(key, { name: this.nameOf(event.seat), card: cardName(event.card) });
      if (event.taken > 0) text += " " + tn("event.took", event.taken);
      for (const mark of event.marks || []) text += " " + t(`mark.${mark.kind}`, { points: mark.points });
      const swept = this.view.phase !== "playing" && this.history && this.history.sweep;
      if (swept) text += " " + tn(swept.seat === this.seat ? "event.sweepYou" : "event.sweep", swept.cards, { name: this.nameOf(swept.seat) });
      this.lastPlayText = text;
      const next = this.view.turn;
      if (next !== null && next === this.seat) text += " " + t("table.yourTurn");
    } else if (event.kind === "round-start") {
      text = this.view.dealer === this.seat ? t("event.roundStartYou", { n: this.view.round + 1 })
        : t("event.roundStart", { n: this.view.round + 1, dealer: this.nameOf(this.view.dealer) });
      this.lastPlayText = "";
      if (this.view.turn === this.seat) text += " " + t("table.yourTurn");
    } else if (event.kind === "round-end") {
      text = t("event.roundEnd", { n: this.view.round + 1 });
    } else if (event.kind === "match-end") {
      text = t("event.matchEnd", { side: this.sideName(event.winner) });
    } else if (event.kind === "resign") {
      text = event.seat === this.seat ? t("end.youResigned") : t("event.resigned", { name: this.nameOf(event.seat) });
    } else if (event.kind === "rematch") {
      text = t("event.rematch");
    } else if (event.kind === "seat" && event.seat !== this.seat) {
      text = t(event.state === "left" ? "event.seatOff" : event.state === "joined" ? "event.seatJoined" : "event.seatOn", { name: this.nameOf(event.seat) });
    } else if (event.kind === "ready" && event.seat !== this.seat) {
      text = t("event.ready", { name: this.nameOf(event.seat) });
    }
    if (text) announce(text);
  }

  // -- animation ----------------------------------------------------------------------

  playSource(event) {
    const selector = event.seat === this.seat
      ? `.hand [data-card="${event.card}"]`
      : `[data-seat="${event.seat}"] .mini-hand`;
    const node = this.root.querySelector(selector) || this.root.querySelector(`[data-seat="${event.seat}"]`);
    return node ? node.getBoundingClientRect() : null;
  }

  // -- drawing ------------------------------------------------------------------------

  renderMissing(error) {
    const notFound = error instanceof ApiError && error.status === 404;
    return h("div", { class: "panel center" },
      h("h1", {}, notFound ? t("table.notFound") : t("error.server", { message: error.message })),
      h("a", { class: "button primary", href: "/" }, t("table.backToLobby")));
  }

  renderJoin() {
    const table = this.table;
    const nameInput = h("input", { id: "join-name", type: "text", maxlength: 24, value: playerName(), autocomplete: "nickname" });
    const join = async (event) => {
      event.preventDefault();
      const name = nameInput.value.trim();
      setPlayerName(name);
      try {
        const joined = await api("POST", `/api/tables/${this.tableId}/join`, name ? { name } : {});
        holdSeat(this.tableId, joined.seat, joined.token);
        this.seat = joined.seat;
        this.table = joined.table;
        this.connect(joined.token);
      } catch (error) {
        this.notice = t("error.join", { message: error.message });
        this.renderJoin();
      }
    };
    this.root.replaceChildren(h("form", { class: "panel join-panel", onsubmit: join, "aria-labelledby": "join-title" },
      h("h1", { id: "join-title" }, t("join.title")),
      h("p", {}, t("join.introTarget", { rules: presetName(table.rules.name), players: table.rules.players, target: table.target })),
      h("details", { class: "join-rules" }, h("summary", {}, t("rulesHelp.open")), renderRules(table.rules, table.target)),
      h("ul", { class: "seat-list" }, table.seats.map((s) => h("li", {}, seatName(s, table.seats)))),
      h("label", { class: "field" }, h("span", {}, t("lobby.yourName")), nameInput),
      this.notice && h("p", { class: "error", role: "alert" }, this.notice),
      h("div", { class: "row" },
        h("button", { type: "submit", class: "primary big", id: "join-button" }, t("join.take")),
        h("button", { type: "button", id: "watch-button", onclick: () => this.connect(null) }, t("join.watch")))));
    nameInput.focus();
  }

  render() {
    if (!this.connection) return;
    const active = document.activeElement;
    const focusId = active && this.root.contains(active) ? active.id : null;
    const handFocus = active && active.classList && active.classList.contains("card-button")
      ? [...this.root.querySelectorAll(".hand .card-button")].indexOf(active) : -1;
    const screen = h("div", { class: "table-screen", "data-seq": this.seq ?? "", "data-players": this.table ? this.table.rules.players : "" });
    if (!this.table || !this.view) {
      // Before the first deal there is no view yet: only the seats and the invitation.
      screen.classList.add("pre-deal");
      screen.append(h("div", { class: "topline" }, h("span", { class: "turn-status" }, t("table.waitingStatus")), this.renderConnectionBadge()));
      screen.append(this.table && this.table.status === "waiting" ? this.renderWaiting() : h("p", { class: "loading" }, t("table.loading")));
      this.root.replaceChildren(screen);
      return;
    }
    screen.append(
      this.renderTopline(),
      this.renderOpponents(),
      this.renderCentre(),
      h("p", { class: "status-line" },
        h("span", { class: "last-play", id: "last-play" }, this.lastPlayText || "\u00a0"),
        this.renderNoticeLine()),
      this.seat !== null ? this.renderMe() : h("p", { class: "spectating" }, t("table.watching")),
      h("aside", { class: "table-side" },
        this.renderScoreboard(),
        this.showMemory && this.table.casual && this.seat !== null ? this.renderMemory() : null,
        renderHistory(this)),
    );
    const panel = this.holdPanel ? null : this.renderPanel();
    if (panel) screen.append(h("div", { class: "backdrop", "aria-hidden": "true" }), panel);
    this.root.replaceChildren(screen);
    screen.classList.toggle("my-turn", this.myTurn());
    document.title = (this.myTurn() ? "● " : "") + t("app.title");
    const list = screen.querySelector(".play-list");
    if (list) list.scrollTop = list.scrollHeight;
    // Keep the keyboard where it was: same control, or the card now at the same place.
    const panelNode = this.root.querySelector(".overlay-panel");
    if (panelNode && this.panelKey !== panelNode.dataset.key) {
      this.panelKey = panelNode.dataset.key;
      const first = panelNode.querySelector("button.primary, button, a");
      if (first) first.focus();
    } else if (focusId && document.getElementById(focusId)) {
      document.getElementById(focusId).focus();
    } else if (handFocus >= 0) {
      const buttons = this.root.querySelectorAll(".hand .card-button");
      if (buttons.length) buttons[Math.min(handFocus, buttons.length - 1)].focus();
    }
    if (!panelNode) this.panelKey = null;
  }

  renderConnectionBadge() {
    return h("span", { class: `connection ${this.connectionStatus}`, id: "connection", role: "status" }, t(`connection.${this.connectionStatus}`));
  }

  renderConnection() {
    const badge = this.root.querySelector("#connection");
    if (badge) badge.replaceWith(this.renderConnectionBadge());
  }

  renderNoticeLine() {
    return h("span", { class: "notice", id: "notice", role: "alert" }, this.notice || "");
  }

  renderNotice() {
    const line = this.root.querySelector("#notice");
    if (line) line.replaceWith(this.renderNoticeLine());
    clearTimeout(this.noticeTimer);
    this.noticeTimer = setTimeout(() => {
      this.notice = "";
      const node = this.root.querySelector("#notice");
      if (node) node.textContent = "";
    }, 4000);
  }

  renderTopline() {
    const view = this.view;
    let status;
    if (this.table.status === "waiting") status = t("table.waitingStatus");
    else if (view.phase === "playing" && view.turn !== null) {
      status = view.turn === this.seat ? t("table.yourTurn") : t("table.theirTurn", { name: this.nameOf(view.turn) });
    } else if (view.phase === "round-over") status = t("table.roundOver");
    else status = t("table.matchOver");
    const muted = !soundOn();
    const playing = this.table.status === "playing" && this.seat !== null;
    return h("div", { class: "topline" },
      h("span", { class: "round-label" }, t("table.round", { n: view.round + 1 })),
      h("span", { class: "turn-status", id: "turn-status" }, status),
      this.renderClock(),
      this.renderConnectionBadge(),
      h("span", { class: "table-actions" },
        h("button", { type: "button", class: "small icon", id: "rules-button", title: t("rulesHelp.open"), "aria-label": t("rulesHelp.open"), onclick: () => openRulesHelp(this.rules(), view.target) },
          h("span", { "aria-hidden": "true" }, "?"), h("span", { class: "wide-only" }, t("rulesHelp.short"))),
        h("button", {
          type: "button", class: "small icon", id: "sound-button", "aria-pressed": muted ? "false" : "true", title: t("sound.toggle"), "aria-label": t("sound.toggle"),
          onclick: () => { setSoundOn(muted); this.render(); },
        }, speakerIcon(muted)),
        playing && h("button", { type: "button", class: "small icon", id: "resign-button", title: t("resign.button"), "aria-label": t("resign.button"), onclick: () => this.confirmResign() },
          h("span", { "aria-hidden": "true" }, "⚑"), h("span", { class: "wide-only" }, t("resign.short"))),
        h("button", { type: "button", class: "small icon", id: "leave-button", title: t("leave.button"), "aria-label": t("leave.button"), onclick: () => this.leave() },
          h("span", { "aria-hidden": "true" }, t("leave.short")))));
  }

  /** The seconds left for the play due, from the server's deadline (so a reload keeps the count). */
  clockLeft() {
    if (this.turnEnds === null) return null;
    return Math.max(0, Math.ceil((this.turnEnds - Date.now()) / 1000));
  }

  renderClock() {
    const left = this.clockLeft();
    if (left === null) return null;
    return h("span", { class: `clock${left <= 5 ? " low" : ""}`, id: "clock", role: "timer", "aria-label": t("table.clockLeft", { n: left }) },
      h("span", { "aria-hidden": "true" }, `⏱ ${left}s`));
  }

  tickClock() {
    const node = this.root.querySelector("#clock");
    if (node) node.replaceWith(this.renderClock() || "");
  }

  /** A side's captured pile: its size and its kseris (with this side's last capture marked). */
  renderCaptured(side) {
    const view = this.view;
    const kseris = (view.marks[side] || []).filter((m) => KSERI_KINDS.has(m.kind)).length;
    const size = view.captured_sizes[side];
    return h("span", { class: "captured", role: "img", title: t("score.captured"), "aria-label": t("table.capturedLabel", { n: size, kseris }) },
      h("span", { class: "pile-icon", "aria-hidden": "true" }),
      h("span", { class: "captured-count", "aria-hidden": "true" }, size),
      kseris > 0 && h("span", { class: "kseri-count", "aria-hidden": "true" }, `Ξ${kseris}`));
  }

  lastCapturerTag(seat) {
    if (this.view.last_capturer !== seat) return null;
    return h("span", { class: "tag last-capturer", title: t("table.lastCapturerHelp") }, t("table.lastCapturer"));
  }

  renderScoreboard() {
    const view = this.view;
    const sides = this.sides();
    const items = [];
    for (let side = 0; side < sides; side++) {
      const marks = view.marks[side] || [];
      const kseris = marks.filter((m) => KSERI_KINDS.has(m.kind));
      const mine = this.seat !== null && this.sideOf(this.seat) === side;
      items.push(h("li", { class: `side${mine ? " mine" : ""}${view.winner === side ? " winner" : ""}`, "data-side": side },
        h("span", { class: "side-name" }, this.sideName(side)),
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
  }

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
          partner && h("span", { class: "tag" }, t("table.partner")),
          info.standin && h("span", { class: "tag", title: t("table.standinHelp") }, t("table.standin")),
          view.dealer === seat && h("span", { class: "tag dealer", title: t("table.dealer") }, t("table.dealerShort")),
          this.lastCapturerTag(seat)),
        h("div", { class: "opponent-body" },
          h("div", { class: "mini-hand", "aria-label": tn("table.handSize", size) },
            Array.from({ length: size }, () => h("span", { class: "mini-card" }, cardSvg(null))),
            h("span", { class: "count" }, size)),
          this.renderCaptured(this.sideOf(seat))),
        h("span", { class: "thinking" }, view.turn === seat ? t("table.playing") : "")));
    }
    return h("ul", { class: "opponents", "aria-label": t("table.opponents") }, boxes);
  }

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
  }

  renderMe() {
    const view = this.view;
    const hintValues = new Map((this.hint ? this.hint.values : []).map((v) => [v.card, `${v.value > 0 ? "+" : ""}${v.value.toFixed(1)}`]));
    const turn = this.myTurn();
    const cards = view.hand.map((card, index) => {
      const value = hintValues.get(card);
      const best = this.hint && this.hint.best === card;
      const label = cardName(card) + (value !== undefined ? `, ${t("hint.value", { value })}` : "") + (best ? `, ${t("hint.bestShort")}` : "");
      return h("li", {},
        h("button", {
          type: "button", class: `card-button${best ? " best" : ""}`, id: `hand-${index}`, "data-card": card,
          "aria-disabled": turn ? null : "true", "aria-keyshortcuts": index < 9 ? String(index + 1) : null,
          onclick: () => this.play(card),
        }, h("span", { class: "visually-hidden card-name" }, label), cardSvg(card),
        index < 9 && h("span", { class: "key-hint", "aria-hidden": "true" }, index + 1),
        value !== undefined && h("span", { class: "hint-value", "aria-hidden": "true" }, value)));
    });
    const casual = this.table.casual;
    return h("section", { class: `me${view.turn === this.seat ? " turn" : ""}`, "data-seat": this.seat, "aria-label": t("table.you") },
      h("div", { class: "me-head" },
        h("span", { class: "opponent-name" }, t("seat.you")),
        view.dealer === this.seat && h("span", { class: "tag dealer", title: t("table.dealer") }, t("table.dealerShort")),
        this.lastCapturerTag(this.seat),
        this.renderCaptured(this.sideOf(this.seat)),
        h("span", { class: "your-turn-flag", id: "your-turn-flag" }, turn ? t("table.yourTurnShort") : ""),
        casual && h("button", { type: "button", id: "hint-button", class: "small", disabled: !turn, onclick: () => this.askHint(), "aria-keyshortcuts": "H" }, t("hint.button")),
        casual && h("button", {
          type: "button", id: "memory-button", class: "small", "aria-pressed": this.showMemory ? "true" : "false",
          onclick: () => {
            this.showMemory = !this.showMemory;
            localStorage.setItem("kseri.memory", this.showMemory ? "1" : "0");
            this.render();
          },
        }, t("memory.button"))),
      h("ul", { class: `hand${this.hint ? " hinted" : ""}`, style: `--n:${Math.max(view.hand.length, 2)}`, "aria-label": tn("table.yourHand", view.hand.length) }, cards),
      this.hint
        ? h("p", { class: "hint-help", id: "hint-help" }, t("hint.explain", { card: cardShort(this.hint.best) }))
        : h("p", { class: "keys-help muted" }, t("table.keysHelp")));
  }

  renderMemory() {
    const view = this.view;
    const seen = new Map();
    const add = (card) => seen.set(card, (seen.get(card) || 0) + 1);
    for (const card of view.centre_dealt) if (card) add(card);
    for (const card of view.face_down_seen) add(card);
    for (const play of view.plays) add(play.card);
    const decks = view.rules.decks || 1;
    const rows = [...SUITS].map((suit) => h("tr", {},
      h("th", { scope: "row", class: `suit-${suit}` }, h("span", { "aria-hidden": "true" }, cardShort(`A${suit}`).slice(1)), h("span", { class: "visually-hidden" }, t(`suit.${suit}`))),
      [...RANKS].map((rank) => {
        const code = rank + suit;
        const count = seen.get(code) || 0;
        return h("td", { class: count >= decks ? "gone" : count ? "half" : "", "aria-label": `${cardName(code)}: ${count ? t("memory.played") : t("memory.unseen")}` },
          cardShort(code).slice(0, -1));
      })));
    return h("section", { class: "memory panel", id: "memory", "aria-labelledby": "memory-title" },
      h("h2", { id: "memory-title" }, t("memory.title")),
      h("table", { class: "memory-grid" }, h("tbody", {}, rows)),
      h("p", { class: "muted" }, t("memory.help")));
  }

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
        })
        : renderRoundResult(this);
      const mine = this.seat !== null ? this.table.seats[this.seat] : null;
      const waitingOthers = this.readyRound === view.round || Boolean(mine && mine.ready);
      return h("section", { class: "overlay-panel", role: "dialog", "aria-modal": "false", "aria-labelledby": "panel-title", "data-key": key },
        body,
        !over && this.seat !== null && h("div", { class: "ready-box" },
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
  }

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
  }
}
