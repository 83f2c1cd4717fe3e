// Play the computer with no server (/offline, and the lobby whenever the server is out of reach):
// the rules and the bots are the project's Python engine run in the page (offline-engine.js).
// The game in progress is kept on the device (localStorage) after every play and resumed on the
// next visit; a finished game downloads as a record that `kseri verify` and `kseri replay` accept,
// and stays in a list of finished games on the device that a signed-in player, online, adds to
// their history (unrated, marked offline: POST /api/offline-games).
// The lobby needs no engine (offlineInfo): it offers "Learn to play" (the tutorial, its lessons
// kept by the service worker) and the rules help, and keeps the engine for offline play when asked
// ("Keep for offline play", showing the download's progress), else at the first game.
// Also registers the service worker that keeps the page for offline use, asks it to keep the
// tutorial's lessons in the page's language, and keeps the engine when the app is installed.
import { accountApi, accountErrorText, currentAccount, loadAccount } from "./account.js";
import { cardName, cardShort, cardSvg } from "./cards.js";
import { announce, h, navigate, reducedMotion } from "./dom.js";
import { currentLanguage, t } from "./i18n.js";
import { levelName, levelWithRating } from "./lobby.js";
import { engineKept, keepEngine, offlineInfo, offlineModule, watchKeeping } from "./offline-engine.js";
import { openRulesHelp, presetName } from "./rules-help.js";
import { centreMethods } from "./table-centre.js";
import { soundButton } from "./table-controls.js";
import { botRatingBadge } from "./table-ratings.js";
import { scoreMethods } from "./table-scores.js";

const SAVED_KEY = "kseri.offline.game";
const CHOICE_KEY = "kseri.offline.choice";
const FINISHED_KEY = "kseri.offline.finished";
const FINISHED_KEPT = 20;
const BOT_PAUSE_MS = 700;
const STYLE_ID = "offline-style";

let serverGone = false;

/** Register the service worker (where the browser has them) so the page opens offline, with the
 *  tutorial's lessons in the page's language (call it once the language is loaded); installing
 *  the app keeps the engine too. */
export function registerServiceWorker() {
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.register("/sw.js").catch(() => {});
  navigator.serviceWorker.ready.then((registration) => {
    registration.active?.postMessage({ keep: [`/api/learn/${currentLanguage()}`] });
  });
  window.addEventListener("appinstalled", () => keepEngine().catch(() => {}));
}

const MB = (bytes) => (bytes / 1e6).toFixed(1);

/** Whether the server answers (false offline, or with the server out of reach). */
export async function serverAnswers() {
  try {
    serverGone = !navigator.onLine || !(await fetch("/healthz", { cache: "no-store" })).ok;
  } catch {
    serverGone = true;
  }
  return !serverGone;
}

function savedChoice() {
  try {
    return { preset: "greek", level: "expert", ...JSON.parse(localStorage.getItem(CHOICE_KEY)) };
  } catch {
    return { preset: "greek", level: "expert" };
  }
}

/** The finished offline games kept on the device, newest first: {id, record (text), seat, ended, uploaded}. */
function finishedGames() {
  try {
    const games = JSON.parse(localStorage.getItem(FINISHED_KEY));
    return Array.isArray(games) ? games : [];
  } catch {
    return [];
  }
}

function keepFinished(games) {
  localStorage.setItem(FINISHED_KEY, JSON.stringify(games.slice(0, FINISHED_KEPT)));
}

export class OfflineScreen {
  constructor(root) {
    this.root = root;
    this.module = null; // kseri.offline, once the engine has started
    this.kept = false; // whether the engine is kept on this device
    this.progress = null; // the engine's download: {done, total} bytes
    this.unwatch = watchKeeping((progress) => this.showProgress(progress));
    this.presets = null;
    this.levels = [];
    this.ratings = {}; // each level's rating per family (server/ratings.py), kept with the levels
    this.game = null; // an OfflineTable (a Python object)
    // What the online table's drawing and motion read (table-centre.js, table-scores.js): the view
    // drawn (the engine's latest, this.state, once its play has been shown), the seats' kinds,
    // the states waiting to be shown.
    this.view = null;
    this.table = null;
    this.queue = [];
    this.draining = false;
    this.animating = false;
    this.centreOverride = null;
    this.history = null;
    this.seq = 0;
    this.passPlay = null;
    this.notices = { update() {} }; // offline, the page is the only one playing: no turn notices
    this.state = null;
    this.lastPlays = [];
    this.choice = savedChoice();
    this.status = "loading"; // loading | lobby | starting (the engine) | table | failed
    this.savedKey = SAVED_KEY; // where the game in progress is kept (pass and play keeps its own)
    this.error = "";
    this.busy = false;
    this.destroyed = false;
    this.uploads = {}; // a finished game's id → "sending" | "done" | an error's text
    this.backOnline = () => this.reconnect();
    this.wentOffline = () => { serverGone = true; this.render(); };
  }

  /** Back online: ask the server again, and who is signed in, so a finished game can be uploaded. */
  async reconnect() {
    if (await serverAnswers()) await loadAccount();
    this.render();
  }

  async start() {
    if (!document.getElementById(STYLE_ID)) {
      document.head.append(h("link", { rel: "stylesheet", href: "/static/css/offline.css", id: STYLE_ID }));
    }
    window.addEventListener("online", this.backOnline);
    window.addEventListener("offline", this.wentOffline);
    this.render();
    try {
      ({ presets: this.presets, levels: this.levels, ratings: this.ratings } = await offlineInfo());
      this.kept = await engineKept();
    } catch (error) {
      this.fail(error);
      return;
    }
    if (this.destroyed) return;
    const saved = localStorage.getItem(this.savedKey);
    if (saved && (await this.startEngine())) {
      try {
        this.open(this.module.OfflineTable.resume(saved));
        return;
      } catch {
        localStorage.removeItem(this.savedKey); // unreadable: start afresh
      }
    }
    if (this.destroyed || this.status === "failed") return;
    this.status = "lobby";
    this.render();
  }

  fail(error) {
    this.status = "failed";
    this.error = String(error.message || error);
    this.render();
  }

  /** The engine started (kept first, with its progress shown); false where it cannot be. */
  async startEngine() {
    if (this.module) return true;
    const before = this.status;
    this.status = "starting";
    this.render();
    try {
      this.module = await offlineModule();
    } catch (error) {
      if (serverGone && !this.kept) {
        this.status = before === "loading" ? "lobby" : before; // nothing kept to start: say so in the lobby
        this.error = t("offline.notKept");
        this.render();
      } else this.fail(error);
      return false;
    }
    this.kept = true;
    return !this.destroyed;
  }

  /** Keep the engine on this device ("Keep for offline play"), its progress shown. */
  async keep() {
    this.error = "";
    this.progress = { done: 0, total: 0 };
    this.render();
    try {
      await keepEngine();
      this.kept = true;
    } catch (error) {
      this.error = t("offline.keepFailed", { message: String(error.message || error) });
    }
    this.progress = null;
    this.render();
  }

  /** The download's progress, drawn in place (the rest of the screen stays as it is). */
  showProgress(progress) {
    this.progress = progress;
    const bar = this.root.querySelector("#offline-progress");
    if (!bar) {
      if (["lobby", "starting"].includes(this.status)) this.render();
      return;
    }
    bar.max = progress.total;
    bar.value = progress.done;
    this.root.querySelector("#offline-progress-text").textContent = this.progressText();
  }

  progressText() {
    const { done, total } = this.progress;
    return t("offline.keeping", { done: MB(done), total: MB(total) });
  }

  /** The engine's state on this device: kept, downloading (a progress bar), or the button to keep it. */
  renderKeep() {
    if (this.kept) return h("p", { class: "offline-kept", id: "offline-kept", role: "status" }, t("offline.kept"));
    if (this.progress) {
      return h("p", { class: "offline-keeping" },
        h("progress", { id: "offline-progress", max: this.progress.total || 1, value: this.progress.done,
          "aria-labelledby": "offline-progress-text" }),
        h("span", { id: "offline-progress-text", role: "status" }, this.progressText()));
    }
    return h("p", { class: "offline-keep" },
      serverGone ? t("offline.notKept")
        : h("button", { type: "button", id: "offline-keep", onclick: () => this.keep() }, t("offline.keep")));
  }

  destroy() {
    this.destroyed = true;
    window.removeEventListener("online", this.backOnline);
    window.removeEventListener("offline", this.wentOffline);
    this.unwatch();
    if (this.game) this.game.destroy();
  }

  refresh() {
    this.render();
  }

  async newGame() {
    localStorage.setItem(CHOICE_KEY, JSON.stringify(this.choice));
    if (!(await this.startEngine())) return;
    const seed = crypto.getRandomValues(new Uint32Array(1))[0];
    this.open(this.module.OfflineTable.new(this.choice.preset, this.choice.level, seed));
  }

  open(table) {
    if (this.game) this.game.destroy();
    this.game = table;
    this.lastPlays = [];
    this.status = "table";
    this.update();
    this.show(null);
    this.runBots();
  }

  /** Read the state from the engine and keep the game on the device (drawn by show()). */
  update() {
    this.state = JSON.parse(this.game.state());
    const saved = this.game.saved();
    localStorage.setItem(this.savedKey, saved);
    if (this.state.phase === "match-over") this.keepFinished(JSON.parse(saved).seed);
    this.seat = this.state.seat;
    this.table = { status: "playing", seats: this.state.levels.map((level, seat) => ({ seat, kind: level === null ? "human" : "bot", connected: true })) };
  }

  /** Draw the engine's latest state as the online table does (table-centre.js): a play flies to
   *  the pile, a capture sweeps it to its taker, a kseri and the match's end are celebrated, with
   *  their sounds (effects.js), and the round's last sweep (as server/history.py tells it: the
   *  cards left since the last capture go to the round's last capturer); `play` null: drawn at
   *  once; `before`: the state before the play. */
  async show(play, before = null) {
    const result = this.state.round_results[this.state.round_results.length - 1];
    const swept = play && !play.taken && before && before.phase === "playing" && this.state.phase !== "playing"
      && result && result.last_capturer !== null;
    const sweep = swept ? { seat: result.last_capturer, cards: before.centre_size + 1 } : null;
    const message = { table: this.table, view: this.state, seq: ++this.seq, fairness: null, history: { plays: this.state.plays, sweep } };
    if (!play) {
      this.view = this.state;
      this.render();
      return;
    }
    this.queue.push({ ...message, event: { kind: "play", ...play } });
    if (this.state.phase === "match-over") this.queue.push({ ...message, event: { kind: "match-end", winner: this.state.winner } });
    await this.drain();
  }

  // What the online table's methods ask of their screen, offline.
  sides() {
    return this.view.totals.length;
  }

  sideOf(seat) {
    return seat % this.sides();
  }

  nameOf(seat) {
    return this.names()[seat];
  }

  sideName(side) {
    return this.names().filter((_, seat) => this.sideOf(seat) === side).join(" & ");
  }

  myTurn() {
    const s = this.view;
    return Boolean(s && this.status === "table" && s.phase === "playing" && s.turn === s.seat && !this.busy
      && !this.animating && !this.queue.length);
  }

  turnIsMine() {
    return this.myTurn();
  }

  ratingTag() {
    return null; // offline games are unrated
  }

  /** A computer seat's level's rating in these rules ("about 1400"), as the online table shows it. */
  botRatingTag(seat) {
    const level = this.state && this.state.levels[seat];
    return level ? botRatingBadge(this.ratings, this.view.rules.name, level, seat) : null;
  }

  talkBubble() {
    return null; // nobody to talk to
  }

  rememberCommitment() {}

  autoReady() {}

  /** Keep the finished game (once) in the device's list of finished games. */
  keepFinished(seed) {
    this.finishedId = `${seed}`;
    const games = finishedGames();
    if (games.some((game) => game.id === this.finishedId)) return;
    const record = this.game.record(JSON.stringify(this.names()));
    keepFinished([{ id: this.finishedId, record, seat: this.state.seat, ended: new Date().toISOString(), uploaded: false },
      ...games]);
  }

  /** Add a finished game to the signed-in player's history (unrated, marked offline). */
  async upload(id) {
    const game = finishedGames().find((kept) => kept.id === id);
    if (!game || this.uploads[id] === "sending") return;
    this.uploads[id] = "sending";
    this.render();
    let done = true;
    try {
      await accountApi("POST", "/api/offline-games", { record: JSON.parse(game.record), seat: game.seat });
    } catch (error) {
      done = error.code === "already-uploaded";
      if (!done) this.uploads[id] = t("offline.uploadFailed", { message: accountErrorText(error) });
    }
    if (done) {
      this.uploads[id] = "done";
      keepFinished(finishedGames().map((kept) => (kept.id === id ? { ...kept, uploaded: true } : kept)));
      announce(t("offline.uploaded"));
    }
    this.render();
  }

  /** The "Add to my history" button of a finished game (online and signed in), or what became of it. */
  uploadControl(game) {
    const state = this.uploads[game.id];
    if (game.uploaded || state === "done") return h("p", { class: "offline-uploaded", role: "status" }, t("offline.uploaded"));
    if (serverGone || !currentAccount()) return null;
    return h("span", { class: "offline-upload" },
      h("button", { type: "button", class: "offline-upload-button", "data-game": game.id, disabled: state === "sending",
        onclick: () => this.upload(game.id) }, t("offline.upload")),
      state && state !== "sending" && h("span", { class: "error", role: "alert" }, state));
  }

  names() {
    return (this.view || this.state).levels.map((level, seat) => (level === null ? t("offline.you")
      : t((this.view || this.state).levels.length > 2 ? "seat.botN" : "seat.bot", { level: levelName(level), n: seat + 1 })));
  }

  /** Say a play or the match's end (the online table's apply() calls it as each is shown). */
  describe(event) {
    if (event.kind === "play") announce(this.playLine(event));
  }

  playLine(play) {
    const name = this.names()[play.seat];
    const line = play.taken ? t("offline.took", { name, card: cardShort(play.card), n: play.taken })
      : t("offline.played", { name, card: cardShort(play.card) });
    return play.marks.length ? `${line} ${t("offline.kseri")}` : line;
  }

  /** The engine's answer to a play: kept in the last plays, read, kept on the device, shown. */
  async record(play) {
    const parsed = JSON.parse(play);
    const before = this.state;
    this.lastPlays = [...this.lastPlays.slice(-3), parsed];
    this.update();
    await this.show(parsed, before);
  }

  async runBots() {
    const game = this.game; // a game abandoned meanwhile stops here
    while (!this.destroyed && this.game === game && this.state.phase === "playing" && this.state.levels[this.state.turn] !== null) {
      this.busy = true;
      this.render();
      await new Promise((resolve) => setTimeout(resolve, reducedMotion() ? 50 : BOT_PAUSE_MS));
      if (this.destroyed || this.game !== game) return;
      await this.record(this.game.bot_play());
    }
    if (this.destroyed || this.game !== game) return;
    this.busy = false;
    this.render();
    if (this.state.phase === "playing") announce(t("offline.yourTurn"));
  }

  async play(card) {
    if (!this.myTurn()) return;
    this.busy = true;
    try {
      await this.record(this.game.play(card));
    } finally {
      this.busy = false;
    }
    this.runBots();
  }

  nextRound() {
    this.game.next_round();
    this.lastPlays = [];
    this.update();
    this.show(null);
    this.runBots();
  }

  abandon() {
    localStorage.removeItem(this.savedKey);
    this.game.destroy();
    this.game = null;
    this.queue = []; // its plays not shown yet are dropped
    this.busy = false;
    this.status = "lobby";
    this.render();
  }

  download() {
    const text = this.game.record(JSON.stringify(this.names()));
    const link = h("a", {
      href: URL.createObjectURL(new Blob([text], { type: "application/json" })),
      download: `kseri-offline-${new Date().toISOString().slice(0, 10)}.json`,
    });
    document.body.append(link);
    link.click();
    link.remove();
  }

  render() {
    if (this.destroyed) return;
    const body = this.status === "table" ? this.renderTable()
      : this.status === "lobby" ? this.renderLobby()
        : this.status === "failed" ? h("p", { class: "error", role: "alert" }, t("offline.failed", { message: this.error }))
          : this.status === "starting" ? this.renderStarting()
            : h("p", { class: "loading", role: "status" }, t("offline.loading"));
    // the table fills the window as the online one does (style.css); the rest is a column
    this.root.replaceChildren(this.status === "table" ? body : h("div", { class: "offline" }, this.renderNotice("p"), body));
  }

  /** "You are offline" while the server is out of reach (`tag`: a paragraph, or a span in the table's top line). */
  renderNotice(tag) {
    return serverGone && h(tag, { class: "offline-notice", role: "status" }, t("offline.notice"));
  }

  /** Starting the engine: its download's progress while it is fetched. */
  renderStarting() {
    return h("div", { class: "panel offline-starting" },
      h("p", { class: "loading", role: "status" }, t("offline.loading")),
      this.progress && this.progress.done < this.progress.total && this.renderKeep());
  }

  renderLobby() {
    const c = this.choice;
    const select = (id, label, values, chosen, nameOf, onchange) => h("label", { class: "field" }, h("span", {}, label),
      h("select", { id, onchange: (e) => onchange(e.target.value) },
        values.map((value) => h("option", { value, selected: value === chosen }, nameOf(value)))));
    return h("section", { class: "panel offline-lobby", "aria-labelledby": "offline-title" },
      h("h1", { id: "offline-title" }, t("offline.title")),
      h("p", {}, t("offline.intro")),
      select("offline-preset", t("offline.rules"), Object.keys(this.presets), c.preset, presetName, (preset) => { c.preset = preset; this.render(); }),
      select("offline-level", t("lobby.level"), this.levels, c.level, (level) => levelWithRating(this.ratings, c.preset, level),
        (level) => { c.level = level; }),
      h("p", { class: "offline-actions" },
        h("button", { type: "button", class: "primary big", id: "offline-play", onclick: () => this.newGame() }, t("offline.play")),
        h("button", { type: "button", id: "offline-rules", onclick: () => openRulesHelp(this.presets[c.preset]) },
          t("lobby.rulesOf", { name: presetName(c.preset) })),
        h("a", { href: "/#learn", id: "offline-learn", class: "button" }, t("lobby.learn"))),
      h("p", {}, h("a", { href: "/offline#device", id: "offline-passplay", onclick: (e) => { e.preventDefault(); navigate("/offline#device"); } },
        t("passplay.offlineLink"))),
      this.error && h("p", { class: "error", role: "alert" }, this.error),
      this.renderKeep(),
      !serverGone && h("p", {}, h("a", { href: "/", onclick: (e) => { e.preventDefault(); navigate("/"); } }, t("offline.online"))),
      this.renderFinished());
  }

  /** The finished games kept on the device, each with its "Add to my history". */
  renderFinished() {
    const games = finishedGames();
    if (!games.length) return null;
    return h("section", { class: "offline-finished", "aria-labelledby": "offline-finished-title" },
      h("h2", { id: "offline-finished-title" }, t("offline.finishedGames")),
      h("ul", {}, games.map((game) => {
        const record = JSON.parse(game.record);
        return h("li", { "data-game": game.id },
          h("span", {}, t("offline.finishedGame", { name: presetName(record.rules.name), date: new Date(game.ended).toLocaleDateString(),
            score: record.totals.join(" – ") })), " ",
          this.uploadControl(game));
      })));
  }

  /** The table in the online one's grid (style.css, .table-screen: sized to the window), drawn
   *  by its parts (table-scores.js: the sides' scores and captured piles, the opponents;
   *  table-centre.js: the stock and the pile), with the offline top line, hand and last plays. */
  renderTable() {
    const s = this.view;
    const myTurn = this.myTurn();
    const lastResult = s.round_results[s.round_results.length - 1];
    const showResult = s.phase !== "playing" && lastResult && !this.animating && !this.queue.length;
    const lastPlay = this.lastPlays[this.lastPlays.length - 1];
    const screen = h("div", { class: `table-screen offline-table${myTurn ? " my-turn" : ""}`, "data-players": s.rules.players },
      this.renderOfflineTopline(),
      this.renderOpponents(),
      this.renderCentre(),
      h("p", { class: "status-line" }, h("span", { class: "last-play" }, lastPlay ? this.playLine(lastPlay) : "\u00a0")),
      s.seat !== null && this.renderHand(),
      h("aside", { class: "table-side" },
        this.renderScoreboard(),
        h("section", { class: "round-plays", "aria-labelledby": "offline-log-title" },
          h("h2", { id: "offline-log-title" }, t("offline.log")),
          h("ol", { class: "play-list offline-log", tabindex: "0", "aria-labelledby": "offline-log-title" },
            this.lastPlays.map((play) => h("li", { class: "play-item" }, this.playLine(play)))))));
    if (showResult) screen.append(h("div", { class: "backdrop", "aria-hidden": "true" }), this.renderResult(lastResult));
    return screen;
  }

  /** The top line as the online table's: the rules' name, whose turn it is, the notice while
   *  offline, and the buttons (the rules, the sound, a new game). */
  renderOfflineTopline() {
    const s = this.view;
    const rulesOf = t("lobby.rulesOf", { name: presetName(s.rules.name) });
    return h("div", { class: "topline" },
      h("span", { class: "round-label" }, presetName(s.rules.name)),
      h("span", { class: "turn-status offline-turn", role: "status" }, s.phase !== "playing" ? "\u00a0"
        : this.myTurn() ? t("offline.yourTurn") : t("offline.thinking", { name: this.names()[s.turn] })),
      this.renderNotice("span"),
      h("span", { class: "table-actions" },
        h("button", { type: "button", class: "small icon", id: "offline-rules", title: rulesOf, "aria-label": rulesOf,
          onclick: () => openRulesHelp(s.rules, s.target) },
        h("span", { "aria-hidden": "true" }, "?"), h("span", { class: "wide-only", "aria-hidden": "true" }, t("rulesHelp.short"))),
        soundButton(() => this.render()),
        h("button", { type: "button", class: "small", id: "offline-new", onclick: () => this.abandon() }, t("offline.newGame"))));
  }

  /** The hand shown (the seat's view), as the online table's (.me, .hand). */
  renderHand() {
    const s = this.view;
    const myTurn = this.myTurn();
    return h("section", { class: `me${s.turn === s.seat ? " turn" : ""}`, "data-seat": s.seat, "aria-label": this.names()[s.seat] },
      h("div", { class: "me-head" },
        h("span", { class: "opponent-name" }, this.names()[s.seat]),
        s.dealer === s.seat && h("span", { class: "tag dealer", title: t("table.dealer") }, t("table.dealerShort")),
        this.lastCapturerTag(s.seat),
        this.renderCaptured(this.sideOf(s.seat)),
        h("span", { class: "your-turn-flag" }, myTurn ? t("table.yourTurnShort") : "")),
      h("ul", { class: "hand offline-hand", style: `--n:${Math.max(s.hand.length, 2)}`, "aria-label": t("offline.hand") },
        s.hand.map((card) => h("li", {},
          h("button", {
            type: "button", class: "card-button", "data-card": card,
            "aria-disabled": myTurn ? "false" : "true", onclick: () => this.play(card),
          }, h("span", { class: "visually-hidden" }, cardName(card)), cardSvg(card))))));
  }

  /** The round's or the match's end, over the table as the online table's panels. */
  renderResult(lastResult) {
    const s = this.view;
    const sideName = (side) => this.sideName(side);
    return h("section", { class: "overlay-panel offline-result", role: "status" },
      h("h2", {}, s.phase === "match-over"
        ? (s.winner === s.side ? t("offline.youWon") : t("offline.won", { name: sideName(s.winner) }))
        : t("offline.roundOver", { n: s.round + 1 })),
      h("ul", {}, lastResult.points.map((points, side) => h("li", {}, t("offline.roundPoints", { name: sideName(side), n: points })))),
      s.phase === "round-over"
        ? h("button", { type: "button", class: "primary", id: "offline-next", onclick: () => this.nextRound() }, t("offline.nextRound"))
        : h("button", { type: "button", class: "primary", id: "offline-download", onclick: () => this.download() }, t("offline.download")),
      s.phase === "match-over" && this.finishedId && this.uploadControl(finishedGames().find((game) => game.id === this.finishedId)
        || { id: this.finishedId, uploaded: false }));
  }
}

// The online table's drawing and motion, shared: the same methods, fed the same view.
Object.assign(OfflineScreen.prototype, scoreMethods, centreMethods);
