// Pass and play with no server (/offline#device): several people at one device, any other seat
// the computer, all played by the project's engine in the page (kseri.offline.OfflineTable
// .new_shared under Pyodide). The engine gives the page one seat's view at a time: none between
// turns, when passplay.js's hand-over screen names the next person and hides every hand until
// they tap; the seat to play once they have. The game is kept on the device after every play
// (its own key, beside a game against the computer) and resumed on the next visit, at the
// hand-over. At the end, a rematch: the same people in the same seats.
import { h, navigate } from "./dom.js";
import { t } from "./i18n.js";
import { levelName } from "./lobby.js";
import { OfflineScreen } from "./offline.js";
import { handOver } from "./passplay.js";
import { openRulesHelp, presetName } from "./rules-help.js";

const SAVED_KEY = "kseri.offline.passplay";
const SETUP_KEY = "kseri.offline.passplay.setup";

/** Each seat of a preset for `players` people: the first two people, the others the computer. */
function seatsFor(players, kept = []) {
  return Array.from({ length: players }, (_, seat) => kept[seat]
    || { person: seat < 2, name: t("passplay.defaultName", { n: seat + 1 }), level: "expert" });
}

function savedSetup() {
  try {
    const setup = JSON.parse(localStorage.getItem(SETUP_KEY));
    if (setup && Array.isArray(setup.seats)) return { preset: "greek", oneRound: false, ...setup };
  } catch {
    // unreadable: the first setup again
  }
  return { preset: "greek", oneRound: false, seats: null };
}

export class PassPlayOfflineScreen extends OfflineScreen {
  constructor(root) {
    super(root);
    this.savedKey = SAVED_KEY;
    this.setup = savedSetup();
    this.setupError = "";
  }

  players() {
    return this.presets[this.setup.preset].players;
  }

  /** A new match of the setup (also the rematch: the same people in the same seats). */
  async newGame() {
    const seats = this.setup.seats;
    localStorage.setItem(SETUP_KEY, JSON.stringify(this.setup));
    if (!(await this.startEngine())) return;
    const levels = seats.map((seat) => (seat.person ? null : seat.level));
    const seed = crypto.getRandomValues(new Uint32Array(1))[0];
    let table;
    try {
      table = this.module.OfflineTable.new_shared(this.setup.preset, JSON.stringify(levels), seed, this.setup.oneRound);
    } catch {
      this.setupError = t("passplay.needTwo");
      this.render();
      return;
    }
    this.setupError = "";
    this.open(table);
  }

  /** A pass-and-play game joins no account's history (it is no one person's): nothing kept. */
  keepFinished() {
    this.finishedId = null;
  }

  names() {
    const levels = (this.view || this.state).levels;
    return levels.map((level, seat) => (level === null ? this.setup.seats[seat].name
      : t(levels.length > 2 ? "seat.botN" : "seat.bot", { level: levelName(level), n: seat + 1 })));
  }

  /** The person whose play is due in the state drawn (their seat), or null: none while a play
   *  is being made or is still moving on the table (the hand-over waits for its motion). */
  personDue() {
    const s = this.view;
    const moving = this.busy || this.animating || this.queue.length > 0;
    return s.phase === "playing" && !moving && s.levels[s.turn] === null ? s.turn : null;
  }

  /** A person's card flies from their hand on screen (the engine hides it as soon as it is played). */
  playSource(play) {
    const card = this.root.querySelector(`.offline-hand [data-card="${play.card}"]`);
    return card ? card.getBoundingClientRect() : super.playSource(play);
  }

  /** The hand-over's tap: the engine gives the page this seat's view from now on. */
  showSeat(seat) {
    this.game.show(seat);
    this.update();
    this.show(null);
  }

  renderTable() {
    const s = this.view;
    const table = super.renderTable();
    const due = this.personDue();
    if (due !== null && s.seat !== due) {
      table.querySelector(".offline-turn").textContent = "\u00a0"; // the hand-over says whose turn it is
      const handover = handOver(due, this.names()[due], false, () => this.showSeat(due));
      const me = table.querySelector(".me");
      if (me) me.replaceWith(handover);
      else table.querySelector(".status-line").after(handover);
    }
    else if (s.seat !== null) table.querySelector(".offline-hand").setAttribute("aria-label", t("passplay.handOf", { name: this.names()[s.seat] }));
    const result = table.querySelector(".offline-result");
    if (s.phase === "match-over" && result) {
      result.append(h("button", { type: "button", class: "primary", id: "passplay-rematch", onclick: () => this.newGame() },
        t("end.rematch")));
    }
    return table;
  }

  renderLobby() {
    const setup = this.setup;
    const players = this.players();
    setup.seats = seatsFor(players, (setup.seats || []).slice(0, players));
    const change = (update) => { Object.assign(setup, update); this.setupError = ""; this.render(); };
    return h("section", { class: "panel offline-lobby passplay-lobby", "aria-labelledby": "passplay-title" },
      h("h1", { id: "passplay-title" }, t("passplay.offlineTitle")),
      h("p", {}, t("passplay.offlineIntro")),
      h("label", { class: "field" }, h("span", {}, t("offline.rules")),
        h("select", { id: "passplay-preset", onchange: (e) => change({ preset: e.target.value }) },
          Object.keys(this.presets).map((name) => h("option", { value: name, selected: name === setup.preset }, presetName(name))))),
      h("label", { class: "check" },
        h("input", { type: "checkbox", id: "passplay-one-round", checked: setup.oneRound, onchange: (e) => { setup.oneRound = e.target.checked; } }),
        " ", t("passplay.oneRound")),
      h("ol", { class: "passplay-seats" }, setup.seats.map((seat, index) => h("li", { "data-seat": index },
        h("fieldset", {},
          h("legend", {}, t("passplay.seat", { n: index + 1 })),
          h("label", { class: "field" }, h("span", {}, t("passplay.who")),
            h("select", { id: `passplay-who-${index}`, onchange: (e) => { seat.person = e.target.value === "person"; change({}); } },
              h("option", { value: "person", selected: seat.person }, t("passplay.person")),
              h("option", { value: "bot", selected: !seat.person }, t("passplay.computer")))),
          seat.person
            ? h("label", { class: "field" }, h("span", {}, t("passplay.name")),
              h("input", { type: "text", id: `passplay-name-${index}`, maxlength: 24, value: seat.name,
                oninput: (e) => { seat.name = e.target.value.trim() || t("passplay.defaultName", { n: index + 1 }); } }))
            : h("label", { class: "field" }, h("span", {}, t("lobby.level")),
              h("select", { id: `passplay-level-${index}`, onchange: (e) => { seat.level = e.target.value; } },
                this.levels.map((level) => h("option", { value: level, selected: level === seat.level }, levelName(level))))))))),
      this.setupError && h("p", { class: "error", role: "alert" }, this.setupError),
      this.error && h("p", { class: "error", role: "alert" }, this.error),
      this.renderKeep(),
      h("p", { class: "offline-actions" },
        h("button", { type: "button", class: "primary big", id: "passplay-start", onclick: () => this.newGame() }, t("passplay.start")),
        h("button", { type: "button", id: "offline-rules", onclick: () => openRulesHelp(this.presets[setup.preset]) },
          t("lobby.rulesOf", { name: presetName(setup.preset) }))),
      h("p", {}, h("a", { href: "/offline", id: "passplay-computer", onclick: (e) => { e.preventDefault(); navigate("/offline"); } },
        t("offline.play"))));
  }
}
