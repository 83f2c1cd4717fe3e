// Tournaments for people (/tournaments: the list, creating one, joining; /tournaments/ID: its
// entrants, rounds, tables and standings, pushed live over the WebSocket /ws/tournaments/ID; a
// player is sent to their table when a round starts, with a notice if the page is hidden).
// docs/events.md.
import { api } from "./api.js";
import { accountApi, accountErrorText, currentAccount } from "./account.js";
import { h, navigate } from "./dom.js";
import { t, tn, translated } from "./i18n.js";
import { presetName } from "./rules-help.js";
import { notify, turnTitle } from "./notices.js";

const STYLE_ID = "tournaments-style";
const REFRESH_MS = 2000; // the list's refresh
const RETRY_MS = 1000; // a lost live feed opens again after this, doubling up to RETRY_MAX_MS
const RETRY_MAX_MS = 15000;
const SENT_KEY = "kseri.tournamentTables"; // the tables this browser was already sent to

function link(href, text, attrs = {}) {
  return h("a", { href, ...attrs, onclick: (e) => { e.preventDefault(); navigate(href); } }, text);
}

function addStyle() {
  if (!document.getElementById(STYLE_ID)) {
    document.head.append(h("link", { rel: "stylesheet", href: "/static/css/tournaments.css", id: STYLE_ID }));
  }
}

function statusText(tournament) {
  if (tournament.status === "playing" && tournament.format === "arena") return t("tournament.arenaEnds", { when: new Date(tournament.ends * 1000).toLocaleTimeString() });
  if (tournament.status === "playing") return t("tournament.status.playing", { round: tournament.round, rounds: tournament.rounds });
  return t(`tournament.status.${tournament.status}`);
}

function startsText(tournament) {
  return new Date(tournament.starts * 1000).toLocaleString();
}

function errorText(error) {
  return translated(`tournament.error.${error.code}`, accountErrorText(error));
}

/** /tournaments: the public tournaments, and a signed-in player's form to create one. */
export class TournamentsScreen {
  constructor(root) {
    this.root = root;
    this.list = null;
    this.error = "";
    this.busy = false;
    this.timer = null;
    this.alive = true;
    this.form = { name: "", rules: "greek", format: "swiss", rounds: 3, minutes: 10, showWithin: "120", arenaMinutes: 30, rated: "", bot: "" };
    this.page = null; // drawn once: the form stays put (what is typed, and the focus) while the list refreshes
  }

  async start() {
    addStyle();
    await this.load();
  }

  destroy() {
    this.alive = false;
    clearTimeout(this.timer);
  }

  refresh() {
    this.page = null; // the language changed: every label anew
    this.render();
  }

  async load() {
    if (!this.alive) return;
    try {
      this.list = (await api("GET", "/api/tournaments")).tournaments;
    } catch (error) {
      this.error = t("tournament.error", { message: error.message });
    }
    this.render();
    this.timer = setTimeout(() => this.load(), REFRESH_MS * 2);
  }

  async create(event) {
    event.preventDefault();
    if (this.busy) return;
    this.busy = true;
    this.error = "";
    try {
      const body = { name: this.form.name.trim() || t("tournament.defaultName"), rules: this.form.rules,
        format: this.form.format, rounds: Number(this.form.rounds), starts_in: Number(this.form.minutes) * 60,
        show_within: this.form.showWithin ? Number(this.form.showWithin) : null, rated: this.form.rated === "1",
        bot: ["swiss", "duplicate"].includes(this.form.format) && this.form.bot ? this.form.bot : null };
      if (this.form.format === "arena") Object.assign(body, { show_within: null, minutes: Number(this.form.arenaMinutes) });
      const created = await accountApi("POST", "/api/tournaments", body);
      this.busy = false;
      navigate(`/tournaments/${created.id}`);
    } catch (error) {
      this.error = errorText(error);
      this.busy = false;
      this.render();
    }
  }

  createForm() {
    if (!currentAccount()) {
      return h("p", { class: "panel" }, t("tournament.signInToCreate"), " ", link("/account", t("account.signIn")));
    }
    const field = (key, label, control) => h("label", { class: "field" }, h("span", {}, label), control);
    const input = (key, attrs) => h("input", { id: `tournament-${key}`, value: this.form[key], ...attrs,
      oninput: (e) => { this.form[key] = e.target.value; } });
    const select = (key, options) => h("select", { id: `tournament-${key}`, onchange: (e) => { this.form[key] = e.target.value; } },
      options.map(([value, text]) => new Option(text, value, false, String(this.form[key]) === String(value))));
    return h("form", { class: "panel tournament-form", id: "tournament-form", onsubmit: (e) => this.create(e) },
      h("h2", {}, t("tournament.create")),
      h("div", { class: "fields" },
        field("name", t("tournament.name"), input("name", { maxlength: 80, placeholder: t("tournament.defaultName") })),
        field("rules", t("tournament.rules"), select("rules", [["greek", t("preset.greek")], ["pisti", t("preset.pisti")], ["classic", t("preset.classic")]])),
        field("format", t("tournament.format"), select("format", [["swiss", t("tournament.format.swiss")], ["duplicate", t("tournament.format.duplicate")], ["mirrored", t("tournament.format.mirrored")], ["arena", t("tournament.format.arena")]])),
        field("arenaMinutes", t("tournament.arenaMinutes"), input("arenaMinutes", { type: "number", min: 1, max: 180 })),
        field("rounds", t("tournament.rounds"), input("rounds", { type: "number", min: 1, max: 15 })),
        field("minutes", t("tournament.startsIn"), input("minutes", { type: "number", min: 0, max: 1440 })),
        field("showWithin", t("tournament.showWithin"), select("showWithin", [["60", t("tournament.minutes", { n: 1 })],
          ["120", t("tournament.minutes", { n: 2 })], ["300", t("tournament.minutes", { n: 5 })], ["", t("tournament.showWithin.never")]])),
        field("rated", t("tournament.ratedChoice"), select("rated", [["", t("tournament.casualOption")], ["1", t("tournament.ratedOption")]])),
        field("bot", t("tournament.botChoice"), select("bot", [["", t("tournament.botNone")],
          ...["random", "greedy", "expert"].map((level) => [level, t("tournament.botLevel", { level: t(`level.${level}`) })])]))),
      h("button", { type: "submit", class: "primary", id: "tournament-create", disabled: this.busy }, t("tournament.create")));
  }

  render() {
    const rows = (this.list || []).map((tour) => h("tr", {},
      h("td", {}, link(`/tournaments/${tour.id}`, tour.name)),
      h("td", {}, t(`tournament.format.${tour.format}`)),
      h("td", {}, statusText(tour)),
      h("td", {}, startsText(tour)),
      h("td", { class: "number" }, tour.entrants)));
    const signedIn = Boolean(currentAccount());
    if (!this.page || this.page.signedIn !== signedIn) {
      this.page = { signedIn, error: h("div"), list: h("div"), form: this.createForm() };
      this.root.replaceChildren(h("div", { class: "tournaments" },
        h("h1", {}, t("tournament.title")),
        h("p", { class: "intro" }, t("tournament.intro")),
        this.page.error, this.page.list, this.page.form));
    }
    this.page.error.replaceChildren(...(this.error ? [h("p", { class: "error", role: "alert" }, this.error)] : []));
    const create = this.page.form.querySelector("#tournament-create");
    if (create) create.disabled = this.busy;
    this.page.list.replaceChildren(this.list === null ? h("p", { class: "muted" }, t("tournament.loading"))
      : rows.length ? h("table", { class: "board", id: "tournament-list" },
        h("thead", {}, h("tr", {}, [t("tournament.name"), t("tournament.format"), t("tournament.state"), t("tournament.starts"), t("tournament.entrants")].map((x) => h("th", { scope: "col" }, x)))),
        h("tbody", {}, rows))
        : h("p", { class: "muted" }, t("tournament.none")));
  }
}

/** /tournaments/ID: one tournament, its data pushed live over its WebSocket while it is not over
 * (standings, pairings, each round's tables; no polling). */
export class TournamentScreen {
  constructor(root, id) {
    this.root = root;
    this.id = id;
    this.data = null;
    this.error = "";
    this.timer = null;
    this.socket = null;
    this.backoff = RETRY_MS;
    this.offline = false;
    this.alive = true;
    this.noticeTitle = null;
    this.onVisible = () => {
      if (!document.hidden && document.title === this.noticeTitle) document.title = turnTitle(false);
    };
    document.addEventListener("visibilitychange", this.onVisible);
  }

  async start() {
    addStyle();
    this.render();
    this.connect();
  }

  destroy() {
    this.alive = false;
    clearTimeout(this.timer);
    document.removeEventListener("visibilitychange", this.onVisible);
    if (this.socket) this.socket.close();
  }

  refresh() {
    this.render();
  }

  /** Open the live feed; each message is the tournament's data (or an error), after a lost
   * connection it opens again, waiting longer each time. */
  connect() {
    if (!this.alive) return;
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const socket = new WebSocket(`${scheme}//${location.host}/ws/tournaments/${encodeURIComponent(this.id)}`);
    this.socket = socket;
    socket.onmessage = (event) => {
      let data;
      try {
        data = JSON.parse(event.data);
      } catch {
        return;
      }
      this.backoff = RETRY_MS;
      this.offline = false;
      if (data.error) {
        this.data = null;
        this.error = data.error.code === "no-such-tournament" ? t("tournament.missing") : t("tournament.error", { message: data.error.message });
        this.render();
        return;
      }
      this.received(data);
    };
    socket.onclose = () => {
      if (this.socket !== socket || !this.alive || this.over() || (!this.data && this.error)) return;
      this.offline = true;
      this.render();
      this.timer = setTimeout(() => this.connect(), this.backoff);
      this.backoff = Math.min(this.backoff * 2, RETRY_MAX_MS);
    };
  }

  over() {
    return Boolean(this.data && ["finished", "cancelled"].includes(this.data.status));
  }

  /** New data pushed: a round started for this player announces itself when the page is hidden,
   * and sends the player to their table; else the page shows the news. */
  received(data) {
    const before = this.data;
    this.data = data;
    this.error = "";
    if (data.my_table && (!before || before.my_table !== data.my_table)) {
      this.noticeTitle = t("tournament.notice.title", { round: data.round });
      notify(this.noticeTitle, t("tournament.notice.body", { name: data.name, round: data.round }), `kseri-tournament-${this.id}`);
    }
    if (this.sendToTable()) return;
    this.render();
    if (this.over() && this.socket) this.socket.close();
  }

  /** A round has started with a table for this player not yet shown: go there (once). */
  sendToTable() {
    const table = this.data.my_table;
    if (!table) return false;
    let sent = [];
    try {
      sent = JSON.parse(sessionStorage.getItem(SENT_KEY)) || [];
    } catch {
      sent = [];
    }
    if (sent.includes(table)) return false;
    sessionStorage.setItem(SENT_KEY, JSON.stringify([...sent, table].slice(-50)));
    navigate(`/t/${table}`);
    return true;
  }

  async act(method, path) {
    this.error = "";
    try {
      await accountApi(method, `/api/tournaments/${encodeURIComponent(this.id)}${path}`);
      if (method === "DELETE") {
        navigate("/tournaments");
        return;
      }
    } catch (error) {
      this.error = errorText(error);
      this.render();
    }
  }

  actions() {
    const d = this.data;
    if (!currentAccount()) {
      return d.status === "open" && h("p", {}, t("tournament.signInToJoin"), " ", link("/account", t("account.signIn")));
    }
    const buttons = [];
    if (d.status === "open" && !d.joined) buttons.push(h("button", { type: "button", class: "primary", id: "tournament-join", onclick: () => this.act("POST", "/join") }, t("tournament.join")));
    if (d.status === "open" && d.organiser) {
      buttons.push(h("button", { type: "button", class: "primary", id: "tournament-start", onclick: () => this.act("POST", "/start") }, t("tournament.startNow")));
      buttons.push(h("button", { type: "button", class: "danger", id: "tournament-delete", onclick: () => this.act("DELETE", "") }, t("tournament.delete")));
    }
    if (d.joined && !d.organiser && ["open", "playing"].includes(d.status)) buttons.push(h("button", { type: "button", id: "tournament-withdraw", onclick: () => this.act("POST", "/withdraw") }, t("tournament.withdraw")));
    if (d.my_table) buttons.push(link(`/t/${d.my_table}`, t("tournament.toTable"), { class: "button primary", id: "tournament-table" }));
    return h("p", { class: "actions" }, buttons);
  }

  standings() {
    const d = this.data;
    const duplicate = ["duplicate", "mirrored"].includes(d.format);
    const forfeits = d.show_within !== null || d.standings.some((e) => e.forfeits > 0);
    const buchholz = d.format !== "arena"; // an arena ranks by points alone
    const heads = [t("tournament.place"), t("tournament.player"), t("tournament.score")];
    if (buchholz) heads.push(t("tournament.buchholz"));
    if (duplicate) heads.splice(2, 0, t("tournament.matchpoints"));
    if (forfeits) heads.push(t("tournament.forfeits"));
    const withdrawn = new Set(d.players.filter((p) => p.withdrawn).map((p) => p.username));
    const rows = d.standings.map((e) => h("tr", { class: withdrawn.has(e.username) ? "withdrawn" : null },
      h("td", { class: "number" }, e.place),
      h("td", {}, link(`/p/${encodeURIComponent(e.username)}`, e.username),
        withdrawn.has(e.username) && h("span", { class: "muted" }, ` (${t("tournament.withdrawn")})`)),
      duplicate && h("td", { class: "number" }, e.matchpoints),
      h("td", { class: "number" }, e.score),
      buchholz && h("td", { class: "number" }, e.buchholz),
      forfeits && h("td", { class: "number" }, e.forfeits)));
    return h("section", { class: "panel", "aria-labelledby": "standings-title" },
      h("h2", { id: "standings-title" }, d.status === "finished" ? t("tournament.final") : t("tournament.standings")),
      h("div", { class: "scroll" }, h("table", { class: "board", id: "tournament-standings" },
        h("thead", {}, h("tr", {}, heads.map((x, i) => h("th", { scope: "col", class: i === 1 ? null : "number" }, x)))),
        h("tbody", {}, rows))));
  }

  rounds() {
    const d = this.data;
    return [...d.pairings].reverse().map((rnd) => h("section", { class: "panel round", dataset: { round: rnd.round } },
      h("h2", {}, d.format === "arena" ? t("tournament.games") : t("tournament.round", { n: rnd.round })),
      h("ul", { class: "pairings" }, rnd.games.map((g) => h("li", {},
        g.second === null && g.bot ? [h("span", { class: "pair" }, t("tournament.botGame", { name: g.first, level: t(`level.${g.bot}`) })), " ",
          h("span", { class: "result" }, g.score === null ? t("tournament.playing") : g.points ? `${g.points[0]}–${g.points[1]}` : ""), " ",
          link(`/t/${g.table}${g.score === null ? "" : "#replay"}`, g.score === null ? t("tournament.watch") : t("tournament.replay"))]
        : g.second === null ? t("tournament.bye", { name: g.first })
          : g.forfeit && g.forfeit !== "closed" ? [h("span", { class: "pair" }, t("tournament.versus", { first: g.first, second: g.second })), " ",
            h("span", { class: "result forfeit" }, g.forfeit === "both" ? t("tournament.forfeitBoth")
              : t("tournament.forfeitBy", { name: g.forfeit === "first" ? g.first : g.second }))]
          : [h("span", { class: "pair" }, t("tournament.versus", { first: g.first, second: g.second })), " ",
            h("span", { class: "result" }, g.score === null ? t("tournament.playing")
              : g.forfeit === "closed" ? t("tournament.closedTable") : g.points ? `${g.points[0]}–${g.points[1]}` : ""), " ",
            g.table && link(`/t/${g.table}${g.score === null ? "" : "#replay"}`, g.score === null ? t("tournament.watch") : t("tournament.replay"))])))));
  }

  render() {
    const d = this.data;
    if (!d) {
      this.root.replaceChildren(h("div", { class: "tournaments" }, this.error && h("p", { class: "error", role: "alert" }, this.error)));
      return;
    }
    this.root.replaceChildren(h("div", { class: "tournaments tournament", id: "tournament" },
      h("p", {}, link("/tournaments", t("tournament.all"))),
      h("h1", {}, d.name),
      h("p", { class: "facts", id: "tournament-status" },
        `${t(`tournament.format.${d.format}`)} · ${presetName(d.rules)} · ${statusText(d)} · ${tn("tournament.entrantsCount", d.entrants)}`),
      d.status === "open" && h("p", { class: "facts" }, t("tournament.startsAt", { when: startsText(d) })),
      d.show_within !== null && !this.over() && h("p", { class: "facts", id: "tournament-show-within" }, t("tournament.showWithinFact", { n: d.show_within })),
      h("p", { class: "facts", id: "tournament-rated" }, d.rated ? t("tournament.ratedFact") : t("tournament.casualFact"),
        d.bot ? ` ${t("tournament.botFact", { level: t(`level.${d.bot}`) })}` : ""),
      this.error && h("p", { class: "error", role: "alert" }, this.error),
      this.offline && h("p", { class: "muted", role: "status", id: "tournament-offline" }, t("tournament.reconnecting")),
      this.actions(),
      this.standings(),
      this.rounds(),
      h("p", { class: "commitment" }, t("tournament.commitment"), " ", h("code", {}, d.commitment),
        d.secret && [" ", t("tournament.secret"), " ", h("code", {}, d.secret)])));
  }
}
