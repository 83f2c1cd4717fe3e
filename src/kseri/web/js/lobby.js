// The lobby: a new game against bots or friends (rule set and options explained in words),
// the open tables to join or watch, and a saved record to replay.
import { api, heldSeats, holdSeat, playerName, setPlayerName } from "./api.js";
import { invitationsBox, loadInvitations } from "./challenges.js";
import { h, navigate } from "./dom.js";
import { t, tn, translated } from "./i18n.js";
import { openRulesHelp, presetName } from "./rules-help.js";
import { QuickGame } from "./players.js";
import { holdPassPlay } from "./passplay.js";
import { bellIcon, notificationsOn, notificationsSupported, openNoticeSettings, toggleNotifications } from "./notices.js";

/** The options offered in the form, in this order; the others keep the preset's value. */
const OPTIONS = [
  "target", "kseri_value", "jack_kseri", "kseri_on_last_card", "double_kseri", "jacks_capture_all",
  "majority_bonus", "target_rule", "last_capture_bonus", "jacks_table_bonus", "two_clubs_match_bonus",
];
const NULLABLE = new Set(["jack_kseri", "double_kseri"]);
const ENUMS = { target_rule: ["escalate", "higher-wins"] };
const REFRESH_MS = 4000;

/** The player-count mode of a preset: "2", "3", "2v2", ... */
function modeOf(options) {
  return options.partnerships ? `${options.players / 2}v${options.players / 2}` : String(options.players);
}

/** A bot level's friendly name: its translation, or the server's name for a level the page does not know. */
export function levelName(level) {
  return translated(`level.${level}`, level);
}

/** "about 1400": a bot level's rating on the players' scale in a family, rounded to 50, from
 * ratings ({family: {level: rating}}, as /api/ratings/bots gives them); null where the level is
 * not measured in that family. */
export function levelAbout(ratings, family, level) {
  const rating = ratings[family]?.[level];
  return rating === undefined ? null : t("level.about", { rating: Math.round(rating / 50) * 50 });
}

/** A bot level's name with its rating in the family where known: "Expert · about 1700". */
export function levelWithRating(ratings, family, level) {
  const about = levelAbout(ratings, family, level);
  return about ? `${levelName(level)} · ${about}` : levelName(level);
}

/** A seat's display name (bots are numbered by seat when a table has several). */
export function seatName(seat, seats = []) {
  if (seat.kind === "bot") {
    const several = seats.filter((s) => s.kind === "bot").length > 1;
    return t(several ? "seat.botN" : "seat.bot", { level: levelName(seat.level), n: seat.seat + 1 });
  }
  return seat.name || (seat.taken ? t("seat.player", { n: seat.seat + 1 }) : t("seat.open"));
}

export class LobbyScreen {
  constructor(root) {
    this.root = root;
    this.presets = null;
    this.sources = {};
    this.levels = []; // the server's bot levels, weakest first
    this.botRatings = {}; // each level's rating per family, once the server answered
    this.tables = [];
    this.timer = null;
    this.form = {
      opponents: localStorage.getItem("kseri.opponents") || "bots",
      mode: "2",
      level: localStorage.getItem("kseri.level") || "expert",
      preset: "greek",
      overrides: {},
      casual: null,
      publicTable: true,
      clock: null,
      seatChoices: {},
    };
    this.error = "";
    this.busy = false;
    this.quick = new QuickGame();
  }

  async start() {
    this.render();
    api("GET", "/api/ratings/bots").then((answer) => { this.botRatings = answer.families; this.render(); }, () => {});
    try {
      const rules = await api("GET", "/api/rules");
      this.presets = rules.presets;
      this.sources = rules.sources || {};
      this.levels = rules.levels;
      if (!this.levels.includes(this.form.level)) this.form.level = this.levels.includes("expert") ? "expert" : this.levels[0];
    } catch (error) {
      this.error = t("error.server", { message: error.message });
    }
    this.render();
    if (this.presets) this.quick.start(this.presets);
    this.poll();
    this.findOwnGames();
    this.invitations = await loadInvitations();
    if (this.invitations.length) this.render();
  }

  /** The unfinished games this browser holds a seat in (the most recent first). */
  async findOwnGames() {
    const found = await Promise.all(heldSeats().slice(0, 12).map(async ({ tableId, seat }) => {
      try {
        const table = await api("GET", `/api/tables/${encodeURIComponent(tableId)}`);
        return table.status === "finished" ? null : { table, seat };
      } catch {
        return null;
      }
    }));
    this.ownGames = found.filter(Boolean);
    this.renderOwnGames();
  }

  renderOwnGames() {
    const box = this.root.querySelector("#continue-games");
    if (!box) return;
    const games = this.ownGames || [];
    box.hidden = games.length === 0;
    box.replaceChildren(games.length ? h("section", { class: "panel", "aria-labelledby": "continue-title" },
      h("h2", { id: "continue-title" }, t("continue.title")),
      h("ul", { class: "continue-list" }, games.map(({ table, seat }) => {
        const others = table.seats.filter((s) => s.seat !== seat).map((s) => seatName(s, table.seats)).join(", ");
        const sides = table.totals.length;
        const mySide = seat % sides;
        const score = [table.totals[mySide], ...table.totals.filter((_, side) => side !== mySide)].join(" – ");
        const text = table.status === "waiting"
          ? t("continue.waiting", { rules: presetName(table.rules.name), others })
          : t("continue.item", { rules: presetName(table.rules.name), others, round: table.round + 1, score });
        return h("li", { class: "table-item" }, h("span", {}, text),
          h("a", {
            class: "button primary continue-game", href: `/t/${table.id}`, "data-table": table.id,
            onclick: (e) => { e.preventDefault(); navigate(`/t/${table.id}`); },
          }, t("continue.button")));
      }))) : "");
  }

  async poll() {
    try {
      this.tables = (await api("GET", "/api/lobby")).tables;
      this.renderTables();
    } catch {
      // The list refreshes on the next tick; the form stays usable.
    }
    this.timer = setTimeout(() => this.poll(), REFRESH_MS);
  }

  destroy() {
    clearTimeout(this.timer);
    this.quick.destroy();
  }

  refresh() {
    this.render();
  }

  presetsForMode(mode) {
    return Object.entries(this.presets || {}).filter(([, options]) => modeOf(options) === mode).map(([name]) => name);
  }

  modes() {
    const seen = [];
    for (const options of Object.values(this.presets || {})) {
      const mode = modeOf(options);
      if (!seen.includes(mode)) seen.push(mode);
    }
    return seen;
  }

  ruleSpec() {
    const base = this.presets[this.form.preset];
    const parts = [this.form.preset];
    for (const [name, value] of Object.entries(this.form.overrides)) {
      if (value === base[name]) continue;
      parts.push(`${name}=${value === null ? "none" : value}`);
    }
    return parts.join(",");
  }

  casual() {
    return this.form.casual ?? this.form.opponents !== "friends";
  }

  /** One tap to a game: the Greek rules against the computer at the chosen level. */
  quickPlay() {
    Object.assign(this.form, { opponents: "bots", mode: "2", preset: "greek", overrides: {}, casual: null, clock: null });
    this.create();
  }

  async create(event) {
    if (event) event.preventDefault();
    if (this.busy || !this.presets) return;
    const name = this.root.querySelector("#player-name").value.trim();
    setPlayerName(name);
    const players = this.presets[this.form.preset].players;
    const seats = [name ? { kind: "human", name } : { kind: "human" }];
    for (let i = 1; i < players; i++) {
      const choice = this.form.opponents === "bots" ? this.form.level : this.form.seatChoices[i] || "friend";
      seats.push(choice === "friend" ? { kind: "human" } : { kind: "bot", level: choice });
    }
    this.busy = true;
    this.error = "";
    this.render();
    try {
      const created = await api("POST", "/api/tables", {
        rules: this.ruleSpec(),
        seats,
        clock: this.form.clock,
        casual: this.casual(),
        public: this.form.opponents === "friends" ? this.form.publicTable : false,
        pass_and_play: this.form.opponents === "device",
      });
      holdSeat(created.table.id, created.seat, created.token);
      if (created.tokens) holdPassPlay(created.table.id, created.tokens);
      navigate(`/t/${created.table.id}`);
    } catch (error) {
      this.busy = false;
      this.error = t("error.create", { message: error.message });
      this.render();
    }
  }

  async join(table) {
    const name = this.root.querySelector("#player-name").value.trim();
    setPlayerName(name);
    try {
      const joined = await api("POST", `/api/tables/${table.id}/join`, name ? { name } : {});
      holdSeat(joined.table.id, joined.seat, joined.token);
      navigate(`/t/${joined.table.id}`);
    } catch (error) {
      this.error = t("error.join", { message: error.message });
      this.render();
    }
  }

  set(changes) {
    Object.assign(this.form, changes);
    this.render();
  }

  render() {
    const focusedId = document.activeElement && this.root.contains(document.activeElement) ? document.activeElement.id : null;
    this.root.replaceChildren(
      h("div", { class: "lobby" },
        h("h1", { class: "lobby-title" }, t("lobby.title")),
        h("p", { class: "lobby-intro" }, t("lobby.intro")),
        h("div", { class: "lobby-links" },
          h("a", { class: "button", id: "learn-link", href: "/#learn" }, t("lobby.learn")),
          h("a", { class: "button", id: "puzzles-link", href: "/puzzles" }, t("lobby.puzzles")),
          h("a", { class: "button", id: "trainer-link", href: "/trainer", onclick: (e) => { e.preventDefault(); navigate("/trainer"); } }, t("lobby.trainer")),
          h("a", { class: "button", id: "daily-link", href: "/daily", onclick: (e) => { e.preventDefault(); navigate("/daily"); } }, t("lobby.daily")),
          h("a", { class: "button", id: "challenges-link", href: "/challenges", onclick: (e) => { e.preventDefault(); navigate("/challenges"); } }, t("lobby.challenges")),
          h("a", { class: "button", id: "offline-link", href: "/offline", onclick: (e) => { e.preventDefault(); navigate("/offline"); } }, t("lobby.offline")),
          h("a", { class: "button", id: "tournaments-link", href: "/tournaments", onclick: (e) => { e.preventDefault(); navigate("/tournaments"); } }, t("lobby.tournaments"))),
        invitationsBox(this.invitations),
        h("section", { class: "quick-start" },
          h("button", { type: "button", class: "primary big", id: "quick-play", disabled: this.busy || !this.presets, onclick: () => this.quickPlay() },
            t("lobby.quickPlay")),
          h("span", { class: "quick-help" }, t("lobby.quickPlayHelp", { level: levelWithRating(this.botRatings, "greek", this.form.level) })),
          notificationsSupported() && h("button", {
            type: "button", class: "small", id: "lobby-notify", "aria-pressed": notificationsOn() ? "true" : "false",
            onclick: async () => { await toggleNotifications(); this.render(); },
          }, bellIcon(notificationsOn()), " ", t("notice.toggle")),
          h("button", { type: "button", class: "small", id: "lobby-notice-settings", onclick: () => openNoticeSettings(() => this.render()) },
            t("notice.settings"))),
        h("div", { id: "continue-games", class: "continue-games", hidden: !(this.ownGames || []).length }),
        this.quick.element,
        h("details", { class: "how-to" },
          h("summary", {}, t("howto.title")),
          h("ul", {}, ["capture", "jack", "kseri", "score", "match"].map((k) => h("li", {}, t(`howto.${k}`)))),
          h("button", { type: "button", class: "small", id: "lobby-rules", disabled: !this.presets, onclick: () => openRulesHelp(this.presets[this.form.preset]) },
            t("lobby.rulesOf", { name: presetName(this.form.preset) }))),
        this.renderForm(),
        h("section", { class: "panel", "aria-labelledby": "open-tables-title" },
          h("h2", { id: "open-tables-title" }, t("lobby.openTables")),
          h("div", { id: "open-tables" })),
        this.renderReplayLoader()));
    this.renderTables();
    this.renderOwnGames();
    if (focusedId) document.getElementById(focusedId)?.focus();
  }

  renderForm() {
    const f = this.form;
    const radio = (group, value, label, checked, onchange, extra = null, badge = null) =>
      h("label", { class: "choice" },
        h("input", { type: "radio", name: group, value, id: `${group}-${value}`, checked, onchange }),
        h("span", { class: "choice-text" }, h("span", { class: "choice-label" }, label),
          badge && h("span", { class: "choice-rating" }, badge), extra && h("small", {}, extra)));

    const form = h("form", { class: "panel new-game", "aria-labelledby": "new-game-title", onsubmit: (e) => this.create(e) },
      h("h2", { id: "new-game-title" }, t("lobby.newGame")),
      h("label", { class: "field" }, h("span", {}, t("lobby.yourName")),
        h("input", {
          id: "player-name", type: "text", maxlength: 24, autocomplete: "nickname", value: playerName(),
          placeholder: t("lobby.namePlaceholder"), oninput: (e) => setPlayerName(e.target.value.trim()),
        })),
      h("fieldset", {},
        h("legend", {}, t("lobby.against")),
        h("div", { class: "choices" },
          radio("opponents", "bots", t("lobby.vsBots"), f.opponents === "bots", () => { localStorage.setItem("kseri.opponents", "bots"); this.set({ opponents: "bots", casual: null }); }, t("lobby.vsBotsHelp")),
          radio("opponents", "friends", t("lobby.vsFriends"), f.opponents === "friends", () => { localStorage.setItem("kseri.opponents", "friends"); this.set({ opponents: "friends", casual: null }); }, t("lobby.vsFriendsHelp")),
          radio("opponents", "device", t("lobby.vsDevice"), f.opponents === "device", () => { localStorage.setItem("kseri.opponents", "device"); this.set({ opponents: "device", casual: null }); }, t("lobby.vsDeviceHelp")))),
      h("fieldset", {},
        h("legend", {}, t("lobby.players")),
        h("div", { class: "choices" },
          this.modes().map((mode) => radio("mode", mode, t(`mode.${mode}`), f.mode === mode, () => {
            this.set({ mode, preset: this.presetsForMode(mode)[0], overrides: {}, seatChoices: {} });
          })))),
      f.opponents !== "bots" && this.presets && this.renderSeatChoices(),
      f.opponents === "bots" && h("fieldset", {},
        h("legend", {}, t("lobby.level")),
        h("div", { class: "choices" },
          this.levels.map((level) => radio("level", level, levelName(level), f.level === level, () => {
            localStorage.setItem("kseri.level", level);
            this.set({ level });
          }, translated(`level.${level}.help`, null), levelAbout(this.botRatings, f.preset, level))))),
      this.presets && this.renderRules(),
      h("label", { class: "check" },
        h("input", { type: "checkbox", id: "casual", checked: this.casual(), onchange: (e) => this.set({ casual: e.target.checked }) }),
        h("span", {}, t("lobby.casual"), h("small", {}, t("lobby.casualHelp")))),
      h("label", { class: "field clock-field" }, h("span", {}, t("lobby.clock")),
        h("input", {
          type: "number", id: "clock", min: 5, max: 3600, step: 1, inputmode: "numeric", value: f.clock ?? "",
          placeholder: t("lobby.clockNone"),
          onchange: (e) => { f.clock = e.target.value.trim() === "" ? null : Math.min(3600, Math.max(5, Number.parseInt(e.target.value, 10))); },
        }),
        h("small", {}, t("lobby.clockHelp"))),
      f.opponents === "friends" && h("label", { class: "check" },
        h("input", { type: "checkbox", id: "public", checked: f.publicTable, onchange: (e) => this.set({ publicTable: e.target.checked }) }),
        h("span", {}, t("lobby.public"), h("small", {}, t("lobby.publicHelp")))),
      this.error && h("p", { class: "error", role: "alert" }, this.error),
      h("button", { type: "submit", class: "primary big", id: "create-game", disabled: this.busy || !this.presets },
        f.opponents === "friends" ? t("lobby.invite") : t("lobby.play")));
    return form;
  }

  /** With friends: who takes each other seat, a friend with the link or the computer. */
  renderSeatChoices() {
    const f = this.form;
    const names = this.presetsForMode(f.mode);
    const options = this.presets[names.includes(f.preset) ? f.preset : names[0]];
    const sides = options.partnerships ? options.players / 2 : options.players;
    const rows = [];
    for (let seat = 1; seat < options.players; seat++) {
      const role = seat % sides === 0 ? t("lobby.seatPartner") : t("lobby.seatOpponent");
      rows.push(h("label", { class: "field inline seat-choice" },
        h("span", {}, t("lobby.seatLabel", { n: seat + 1, role })),
        h("select", { id: `seat-${seat}`, onchange: (e) => { f.seatChoices = { ...f.seatChoices, [seat]: e.target.value }; } },
          h("option", { value: "friend", selected: (f.seatChoices[seat] || "friend") === "friend" }, t(f.opponents === "device" ? "lobby.seatHere" : "lobby.seatFriend")),
          this.levels.map((level) => h("option", { value: level, selected: f.seatChoices[seat] === level }, t("seat.bot", { level: levelWithRating(this.botRatings, f.preset, level) }))))));
    }
    return h("fieldset", {}, h("legend", {}, t("lobby.seats")), h("div", { class: "seat-choices" }, rows));
  }

  renderRules() {
    const f = this.form;
    const names = this.presetsForMode(f.mode);
    if (!names.includes(f.preset)) f.preset = names[0];
    const base = this.presets[f.preset];
    const value = (name) => (name in f.overrides ? f.overrides[name] : base[name]);
    const setOption = (name, v) => {
      f.overrides = { ...f.overrides, [name]: v };
    };
    const controls = OPTIONS.filter((name) => name in base).map((name) => {
      const current = value(name);
      const id = `opt-${name}`;
      let input;
      if (typeof base[name] === "boolean") {
        input = h("input", { type: "checkbox", id, checked: current, onchange: (e) => setOption(name, e.target.checked) });
        return h("label", { class: "check option" }, input, h("span", {}, t(`opt.${name}`), h("small", {}, t(`opt.${name}.help`))));
      }
      if (name in ENUMS) {
        input = h("select", { id, onchange: (e) => setOption(name, e.target.value) },
          ENUMS[name].map((v) => h("option", { value: v, selected: v === current }, t(`opt.${name}.${v}`))));
      } else {
        input = h("input", {
          type: "number", id, min: name === "target" ? 1 : 0, step: 1, inputmode: "numeric",
          value: current === null ? "" : current,
          placeholder: NULLABLE.has(name) ? t("opt.off") : null,
          onchange: (e) => {
            const text = e.target.value.trim();
            setOption(name, text === "" ? (NULLABLE.has(name) ? null : base[name]) : Number.parseInt(text, 10));
          },
        });
      }
      return h("label", { class: "field option" }, h("span", {}, t(`opt.${name}`)), input, h("small", {}, t(`opt.${name}.help`)));
    });
    return h("fieldset", {},
      h("legend", {}, t("lobby.rules")),
      h("div", { class: "choices" },
        names.map((name) => h("label", { class: "choice" },
          h("input", { type: "radio", name: "preset", value: name, id: `preset-${name}`, checked: name === f.preset, onchange: () => this.set({ preset: name, overrides: {} }) }),
          h("span", { class: "choice-text" },
            h("span", { class: "choice-label" }, translated(`preset.${name}`, name)),
            h("small", {}, translated(`preset.${name}.help`, this.sources[name] || "")))))),
      h("details", { class: "options" },
        h("summary", {}, t("lobby.options")),
        h("div", { class: "option-grid" }, controls)));
  }

  renderTables() {
    const box = this.root.querySelector("#open-tables");
    if (!box) return;
    if (!this.tables.length) {
      box.replaceChildren(h("p", { class: "muted" }, t("lobby.noTables")));
      return;
    }
    box.replaceChildren(h("ul", { class: "table-list" }, this.tables.map((table) => {
      const free = table.seats.filter((s) => s.kind === "human" && !s.taken).length;
      const who = table.seats.map((s) => seatName(s, table.seats)).join(", ");
      return h("li", { class: "table-item" },
        h("div", {},
          h("strong", {}, translated(`preset.${table.rules.name}`, table.rules.name)),
          " · ", t(`status.${table.status}`),
          h("div", { class: "muted" }, who),
          free > 0 && h("div", { class: "muted" }, tn("lobby.freeSeats", free))),
        h("div", { class: "row" },
          free > 0 && table.status !== "finished" && h("button", { type: "button", class: "primary", onclick: () => this.join(table) }, t("lobby.join")),
          h("a", { class: "button", href: `/t/${table.id}`, onclick: (e) => { e.preventDefault(); navigate(`/t/${table.id}`); } }, t("lobby.watch"))));
    })));
  }

  renderReplayLoader() {
    const input = h("input", {
      type: "file", accept: "application/json,.json", id: "record-file",
      onchange: async (e) => {
        const file = e.target.files[0];
        if (!file) return;
        sessionStorage.setItem("kseri.replay", await file.text());
        navigate("/#replay");
      },
    });
    return h("section", { class: "panel", "aria-labelledby": "replay-title" },
      h("h2", { id: "replay-title" }, t("lobby.replayTitle")),
      h("label", { class: "field" }, h("span", {}, t("lobby.replayFile")), input));
  }
}
