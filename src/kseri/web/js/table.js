// A table: join or watch, then play. Each `state` message from the server (docs/protocol.md)
// is drawn in order: the hand, the centre pile with its top card and size, the opponents and
// their hand sizes, the stock, the sides' capture piles with kseri markers, whose turn it is,
// and the score against the target. Plays land on the pile with a short animation (none when
// the user prefers reduced motion) and are announced to screen readers.
//
// This module holds the screen's life (joining, the connection, the messages, who is who) and
// draws the whole table; the parts live by job in table-hand.js (your hand, the keys, the
// memory aid), table-centre.js (the pile, the stock and the motion of each play),
// table-scores.js (the sides' scores, piles and the opponents' boxes), table-controls.js
// (the top line, the clock, the notices and the round and match panels) and table-ratings.js
// (a rated table's ratings beside the names and their change at the end), table-odds.js (the
// live win-odds bar, casual games against the computer and spectators) and talk.js (the
// table talk's phrases, their bubbles and the mute switch). Their methods are
// the class's own, so `this` is the screen everywhere; trainer.js adds the quiz and the counting aid.
import { api, ApiError, dropSeat, heldSeat, holdSeat, playerName, setPlayerName } from "./api.js";
import { cardName } from "./cards.js";
import { TableConnection } from "./connection.js";
import { announce, h } from "./dom.js";
import { renderHistory } from "./history.js";
import { t, tn, translated } from "./i18n.js";
import { seatName } from "./lobby.js";
import { presetName, renderRules } from "./rules-help.js";
import { centreMethods } from "./table-centre.js";
import { controlMethods } from "./table-controls.js";
import { handMethods } from "./table-hand.js";
import { TurnNotices, turnTitle } from "./notices.js";
import { passPlayMethods, passPlayTokens } from "./passplay.js";
import { oddsMethods } from "./table-odds.js";
import { ratingMethods } from "./table-ratings.js";
import { scoreMethods } from "./table-scores.js";
import { talkMethods } from "./talk.js";
import { trainerMethods } from "./trainer.js";

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
    this.ratings = null; // a rated table's ratings (table-ratings.js)
    this.botRatings = undefined; // each bot level's rating per family (table-ratings.js); null while asked
    this.ratingsKey = null;
    this.liveOdds = null; // the latest live odds (table-odds.js), or {error, code}
    this.oddsAsked = null; // the state (seq) they were last asked for
    this.talkAllowed = true; // whether this table's players may say phrases (the welcome says)
    this.talkOpen = false;
    this.bubbles = {}; // seat → the phrase it said a moment ago (talk.js)
    this.passPlay = null; // pass and play: {held: the seats this device holds, asked: the seat shown}
    this.gone = false; // left (destroy): nothing more is drawn
    this.notices = new TurnNotices();
    this.keyHandler = (event) => this.onKey(event);
    document.addEventListener("keydown", this.keyHandler);
  }

  async start() {
    this.root.replaceChildren(h("p", { class: "loading" }, t("table.loading")));
    const tokens = passPlayTokens(this.tableId);
    if (tokens) {
      this.passPlay = { held: Object.keys(tokens).map(Number), asked: null };
      this.connect(null, Object.values(tokens));
      return;
    }
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

  /** Leave the table: the plays still queued are not shown, and nothing more is drawn (nor
   *  the page's title set, nor a play announced) once the person has moved on. */
  destroy() {
    this.gone = true;
    document.removeEventListener("keydown", this.keyHandler);
    this.notices.destroy();
    if (this.connection) this.connection.close();
    clearInterval(this.clockTimer);
    document.title = t("app.title");
  }

  refresh() {
    if (this.connection) this.render();
    else if (this.table) this.renderJoin();
  }

  connect(token, tokens = null) {
    this.token = token;
    this.connection = new TableConnection(this.tableId, token, {
      message: (message) => this.onMessage(message),
      status: (status) => {
        this.connectionStatus = status;
        this.renderConnection();
      },
    }, tokens);
    this.connection.open();
    this.render();
  }

  onMessage(message) {
    switch (message.type) {
      case "welcome":
        this.table = message.table;
        this.seat = message.seat;
        this.talkAllowed = message.talk !== false;
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
      case "said":
        this.onSaid(message);
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
    this.notice = translated(`error.${message.code}`, message.message);
    announce(this.notice);
    this.renderNotice();
  }

  autoReady() {
    if ((this.seat === null && !this.passPlay) || !this.table || this.table.status !== "waiting" || this.startReadySent) return;
    if (this.connection.send({ type: "ready" })) this.startReadySent = true;
  }

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
    if (seat === this.seat && !this.passPlay) return t("seat.you");
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
      const mine = event.seat === this.seat && !this.passPlay;
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
      text = this.view.dealer === this.seat && !this.passPlay ? t("event.roundStartYou", { n: this.view.round + 1 })
        : t("event.roundStart", { n: this.view.round + 1, dealer: this.nameOf(this.view.dealer) });
      this.lastPlayText = "";
      if (this.view.turn === this.seat) text += " " + t("table.yourTurn");
    } else if (event.kind === "round-end") {
      text = t("event.roundEnd", { n: this.view.round + 1 });
    } else if (event.kind === "match-end") {
      text = event.closed ? t("event.closed", { reason: event.closed }) : t("event.matchEnd", { side: this.sideName(event.winner) });
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
    if (!this.connection || this.gone) return;
    this.watchRatings();
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
      this.passPlay ? this.renderPassPlay()
        : this.seat !== null ? this.renderMe() : h("p", { class: "spectating" }, t("table.watching")),
      h("aside", { class: "table-side" },
        this.renderScoreboard(),
        this.showMemory && this.table.casual && this.seat !== null ? this.renderMemory() : null,
        this.renderOdds(),
        renderHistory(this)),
    );
    const panel = this.holdPanel ? null : this.renderPanel();
    if (panel) screen.append(h("div", { class: "backdrop", "aria-hidden": "true" }), panel);
    this.root.replaceChildren(screen);
    screen.classList.toggle("my-turn", this.myTurn());
    document.title = turnTitle(this.myTurn());
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

}

Object.assign(TableScreen.prototype, handMethods, centreMethods, scoreMethods, controlMethods, ratingMethods, talkMethods,
  passPlayMethods, trainerMethods, oddsMethods);
