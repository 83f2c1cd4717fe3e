// Play the computer with no server (/offline, and the lobby whenever the server is out of reach):
// the rules and the bots are the project's Python engine run in the page (offline-engine.js).
// The game in progress is kept on the device (localStorage) after every play and resumed on the
// next visit; a finished game downloads as a record that `kseri verify` and `kseri replay` accept,
// and stays in a list of finished games on the device that a signed-in player, online, adds to
// their history (unrated, marked offline: POST /api/offline-games).
// Also registers the service worker that keeps the page for offline use.
import { accountApi, accountErrorText, currentAccount, loadAccount } from "./account.js";
import { cardName, cardShort, cardSvg } from "./cards.js";
import { announce, h, navigate, reducedMotion } from "./dom.js";
import { t } from "./i18n.js";
import { levelName } from "./lobby.js";
import { offlineModule } from "./offline-engine.js";
import { openRulesHelp, presetName } from "./rules-help.js";

const SAVED_KEY = "kseri.offline.game";
const CHOICE_KEY = "kseri.offline.choice";
const FINISHED_KEY = "kseri.offline.finished";
const FINISHED_KEPT = 20;
const BOT_PAUSE_MS = 700;
const STYLE_ID = "offline-style";

let serverGone = false;

/** Register the service worker (where the browser has them) so the page opens offline. */
export function registerServiceWorker() {
  if ("serviceWorker" in navigator) navigator.serviceWorker.register("/sw.js").catch(() => {});
}

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
    this.presets = null;
    this.levels = [];
    this.table = null; // an OfflineTable (a Python object)
    this.state = null;
    this.lastPlays = [];
    this.choice = savedChoice();
    this.savedKey = SAVED_KEY; // where the game in progress is kept (pass and play keeps its own)
    this.status = "loading"; // loading | lobby | table | failed
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
      this.module = await offlineModule();
      this.presets = JSON.parse(this.module.presets());
      this.levels = this.module.LEVELS.toJs();
    } catch (error) {
      this.status = "failed";
      this.error = String(error.message || error);
      this.render();
      return;
    }
    if (this.destroyed) return;
    const saved = localStorage.getItem(this.savedKey);
    if (saved) {
      try {
        this.open(this.module.OfflineTable.resume(saved));
        return;
      } catch {
        localStorage.removeItem(this.savedKey); // unreadable: start afresh
      }
    }
    this.status = "lobby";
    this.render();
  }

  destroy() {
    this.destroyed = true;
    window.removeEventListener("online", this.backOnline);
    window.removeEventListener("offline", this.wentOffline);
    if (this.table) this.table.destroy();
  }

  refresh() {
    this.render();
  }

  newGame() {
    localStorage.setItem(CHOICE_KEY, JSON.stringify(this.choice));
    const seed = crypto.getRandomValues(new Uint32Array(1))[0];
    this.open(this.module.OfflineTable.new(this.choice.preset, this.choice.level, seed));
  }

  open(table) {
    if (this.table) this.table.destroy();
    this.table = table;
    this.lastPlays = [];
    this.status = "table";
    this.update();
    this.runBots();
  }

  /** Read the state from the engine, keep the game on the device, draw it. */
  update() {
    this.state = JSON.parse(this.table.state());
    const saved = this.table.saved();
    localStorage.setItem(this.savedKey, saved);
    if (this.state.phase === "match-over") this.keepFinished(JSON.parse(saved).seed);
    this.render();
  }

  /** Keep the finished game (once) in the device's list of finished games. */
  keepFinished(seed) {
    this.finishedId = `${seed}`;
    const games = finishedGames();
    if (games.some((game) => game.id === this.finishedId)) return;
    const record = this.table.record(JSON.stringify(this.names()));
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
    return this.state.levels.map((level, seat) => (level === null ? t("offline.you")
      : t(this.state.levels.length > 2 ? "seat.botN" : "seat.bot", { level: levelName(level), n: seat + 1 })));
  }

  describe(play) {
    const name = this.names()[play.seat];
    const line = play.taken ? t("offline.took", { name, card: cardShort(play.card), n: play.taken })
      : t("offline.played", { name, card: cardShort(play.card) });
    return play.marks.length ? `${line} ${t("offline.kseri")}` : line;
  }

  record(play) {
    const parsed = JSON.parse(play);
    this.lastPlays = [...this.lastPlays.slice(-3), parsed];
    announce(this.describe(parsed));
  }

  async runBots() {
    while (!this.destroyed && this.state.phase === "playing" && this.state.levels[this.state.turn] !== null) {
      this.busy = true;
      this.render();
      await new Promise((resolve) => setTimeout(resolve, reducedMotion() ? 50 : BOT_PAUSE_MS));
      if (this.destroyed) return;
      this.record(this.table.bot_play());
      this.update();
    }
    this.busy = false;
    this.render();
    if (this.state.phase === "playing") announce(t("offline.yourTurn"));
  }

  play(card) {
    if (this.busy || this.state.phase !== "playing" || this.state.turn !== this.state.seat) return;
    this.record(this.table.play(card));
    this.update();
    this.runBots();
  }

  nextRound() {
    this.table.next_round();
    this.lastPlays = [];
    this.update();
    this.runBots();
  }

  abandon() {
    localStorage.removeItem(this.savedKey);
    this.table.destroy();
    this.table = null;
    this.status = "lobby";
    this.render();
  }

  download() {
    const text = this.table.record(JSON.stringify(this.names()));
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
          : h("p", { class: "loading", role: "status" }, t("offline.loading"));
    this.root.replaceChildren(h("div", { class: "offline" },
      serverGone && h("p", { class: "offline-notice", role: "status" }, t("offline.notice")),
      body));
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
      select("offline-level", t("lobby.level"), this.levels, c.level, levelName, (level) => { c.level = level; }),
      h("p", { class: "offline-actions" },
        h("button", { type: "button", class: "primary big", id: "offline-play", onclick: () => this.newGame() }, t("offline.play")),
        h("button", { type: "button", id: "offline-rules", onclick: () => openRulesHelp(this.presets[c.preset]) },
          t("lobby.rulesOf", { name: presetName(c.preset) }))),
      h("p", {}, h("a", { href: "/offline#device", id: "offline-passplay", onclick: (e) => { e.preventDefault(); navigate("/offline#device"); } },
        t("passplay.offlineLink"))),
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

  renderTable() {
    const s = this.state;
    const names = this.names();
    const sides = s.totals.length;
    const myTurn = s.phase === "playing" && s.turn === s.seat && !this.busy;
    const sideName = (side) => names.filter((_, seat) => seat % sides === side).join(" & ");
    const lastResult = s.round_results[s.round_results.length - 1];
    return h("div", { class: "offline-table" },
      h("section", { class: "panel offline-scores", "aria-label": t("offline.scores") },
        h("p", {}, t("offline.target", { name: presetName(s.rules.name), target: s.target })),
        h("ul", {}, s.totals.map((total, side) => h("li", { class: side === s.side ? "mine" : "" },
          h("span", {}, sideName(side)), " ", h("strong", { class: "offline-total", "data-side": side }, total))))),
      h("ul", { class: "offline-others" }, names.map((name, seat) => seat === s.seat ? null
        : h("li", { class: s.turn === seat ? "turn" : "" }, t("offline.handCount", { name, n: s.hand_sizes[seat] })))),
      h("div", { class: "offline-centre" },
        s.centre_top ? cardSvg(s.centre_top) : h("div", { class: "offline-empty" }),
        s.centre_top && h("span", { class: "visually-hidden" }, cardName(s.centre_top)),
        h("p", {}, t("offline.centre", { n: s.centre_size }), " · ", t("offline.stock", { n: s.stock_size }))),
      h("ol", { class: "offline-log", "aria-label": t("offline.log") }, this.lastPlays.map((play) => h("li", {}, this.describe(play)))),
      s.phase === "playing" && h("p", { class: "offline-turn", role: "status" },
        myTurn ? t("offline.yourTurn") : t("offline.thinking", { name: names[s.turn] })),
      h("ul", { class: "hand offline-hand", "aria-label": t("offline.hand") }, s.hand.map((card) => h("li", {},
        h("button", {
          type: "button", class: "card-button", "data-card": card,
          "aria-disabled": myTurn ? "false" : "true", onclick: () => this.play(card),
        }, h("span", { class: "visually-hidden" }, cardName(card)), cardSvg(card))))),
      s.phase !== "playing" && lastResult && h("section", { class: "panel offline-result", role: "status" },
        h("h2", {}, s.phase === "match-over"
          ? (s.winner === s.side ? t("offline.youWon") : t("offline.won", { name: sideName(s.winner) }))
          : t("offline.roundOver", { n: s.round + 1 })),
        h("ul", {}, lastResult.points.map((points, side) => h("li", {}, t("offline.roundPoints", { name: sideName(side), n: points })))),
        s.phase === "round-over"
          ? h("button", { type: "button", class: "primary", id: "offline-next", onclick: () => this.nextRound() }, t("offline.nextRound"))
          : h("button", { type: "button", class: "primary", id: "offline-download", onclick: () => this.download() }, t("offline.download")),
        s.phase === "match-over" && this.finishedId && this.uploadControl(finishedGames().find((game) => game.id === this.finishedId)
          || { id: this.finishedId, uploaded: false })),
      h("p", { class: "offline-actions" },
        h("button", { type: "button", id: "offline-new", onclick: () => this.abandon() }, t("offline.newGame")),
        h("button", { type: "button", id: "offline-rules", onclick: () => openRulesHelp(s.rules, s.target) },
          t("lobby.rulesOf", { name: presetName(s.rules.name) }))));
  }
}
