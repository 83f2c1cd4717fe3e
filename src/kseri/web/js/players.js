// Players in the page (docs/players.md): the lobby's quick game (a seek, rated when signed in
// and paired by rating, casual for guests; a bot offered after a while) with the live seeks,
// each of which can be accepted, profiles (/p/NAME: ratings with
// their history, statistics, results in tournaments and challenges, games) and leaderboards
// (/leaderboard/FAMILY).
import { accountApi, accountErrorText, currentAccount } from "./account.js";
import { api, holdSeat, playerName } from "./api.js";
import { notify } from "./notices.js";
import { h, navigate } from "./dom.js";
import { currentLanguage, t, tn, translated } from "./i18n.js";
import { dailyHistorySection, loadDailyHistory } from "./daily.js";
import { ProfileModeration, refundsSection } from "./moderation.js";

const CLOCKS = [10, 20, 30, 60];
const SEEKS_REFRESH_MS = 2000;
const START = 1500; // everyone's first rating (server/ratings.py)

/** A rule family's name: its translation, or the server's name. */
export function familyName(name) {
  return translated(`preset.${name}`, name);
}

function link(href, text, attrs = {}) {
  return h("a", { href, ...attrs, onclick: (e) => { e.preventDefault(); navigate(href); } }, text);
}

/** The lobby's quick-game panel; keeps its own state across the lobby's redraws. */
export class QuickGame {
  constructor() {
    this.presets = { greek: { players: 2 } };
    this.family = localStorage.getItem("kseri.quickFamily") || "greek";
    this.clock = Number(localStorage.getItem("kseri.quickClock")) || 20;
    this.seek = null; // {id, status, waited, offer_bot, bot_level; key: a guest's}
    this.rated = localStorage.getItem("kseri.quickRated") !== "0"; // a signed-in player's choice
    this.seeks = [];
    this.error = "";
    this.timer = null;
    this.alive = true;
    this.element = h("section", { class: "panel quick-game", id: "quick-game", "aria-labelledby": "quick-game-title" });
    this.seekList = h("ul", { class: "seek-list", id: "seek-list" }); // refreshed alone: the form above keeps its focus
  }

  /** @param presets the server's presets (GET /api/rules): the families offered */
  start(presets) {
    this.presets = presets;
    if (!(this.family in presets)) this.family = Object.keys(presets)[0];
    this.render();
    this.pollSeeks();
  }

  destroy() {
    this.alive = false;
    clearTimeout(this.timer);
    if (this.seek && this.seek.status === "waiting") this.seekApi("DELETE", this.seek).catch(() => {});
  }

  /** Whether this seek is for a rated game (only a signed-in player's may be). */
  wantsRated() {
    return Boolean(currentAccount()) && this.rated;
  }

  /** A call about one's own seek: with the session (an account's) or the seek's key (a guest's). */
  seekApi(method, seek, query = "") {
    const path = `/api/seeks/${seek.id}${query}`;
    if (seek.key) return api(method, path, undefined, undefined, { "X-Seek-Key": seek.key });
    return method === "GET" ? api(method, path) : accountApi(method, path);
  }

  async pollSeeks() {
    if (!this.alive) return;
    try {
      this.seeks = (await api("GET", "/api/seeks")).seeks;
      this.renderSeeks();
    } catch {
      // tried again on the next tick
    }
    this.timer = setTimeout(() => this.pollSeeks(), SEEKS_REFRESH_MS);
  }

  /** Seek a game; ``accept``: a listed seek to be paired with at once (its kind is taken). */
  async find(accept = null) {
    this.error = "";
    if (accept) {
      this.family = accept.family;
      this.clock = accept.clock;
    }
    localStorage.setItem("kseri.quickFamily", this.family);
    localStorage.setItem("kseri.quickClock", String(this.clock));
    const casual = accept ? !accept.rated : !this.wantsRated();
    const wanted = { family: this.family, clock: this.clock, casual };
    if (!currentAccount()) wanted.name = playerName() || undefined;
    try {
      this.seek = await accountApi("POST", "/api/seeks", accept ? { ...wanted, accept: accept.id } : wanted);
    } catch (error) {
      this.error = accountErrorText(error);
      this.render();
      return;
    }
    this.render();
    while (this.alive && this.seek && this.seek.status === "waiting") {
      const seek = this.seek;
      let news;
      try {
        news = { ...(await this.seekApi("GET", seek, "?wait=5")), id: seek.id, key: seek.key };
      } catch (error) {
        news = await this.afterFailure(error, wanted);
      }
      if (this.seek !== seek) continue; // cancelled meanwhile
      this.seek = news;
      this.render();
    }
    if (this.alive && this.seek && this.seek.status === "paired") {
      notify(t("notice.gameFound"), t("notice.gameFoundBody"), "kseri-paired");
      holdSeat(this.seek.table, this.seek.seat, this.seek.token);
      navigate(`/t/${this.seek.table}`);
    }
  }

  /** The seek to wait on after its status could not be had: the same one while the server is
   *  out of reach or restarting; a new one with the same wishes when the server no longer knows
   *  it (it restarted, or the process holding the seeks stopped) and this player has no other
   *  (a newer seek, from another tab, replaces it: that one waits); none on any other refusal. */
  async afterFailure(error, wanted) {
    if (error.status === 0 || error.status >= 500) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      return this.seek;
    }
    if (error.status === 404) {
      if (!this.seek) return null; // cancelled meanwhile
      try {
        const me = currentAccount()?.username;
        if (!me || !(await api("GET", "/api/seeks")).seeks.some((seek) => seek.username === me)) {
          return await accountApi("POST", "/api/seeks", wanted);
        }
      } catch (again) {
        return this.afterFailure(again, wanted);
      }
    }
    this.error = accountErrorText(error);
    return null;
  }

  async cancel() {
    const seek = this.seek;
    this.seek = null;
    this.render();
    if (seek) await this.seekApi("DELETE", seek).catch(() => {});
  }

  async playBot() {
    const level = this.seek.bot_level;
    await this.cancel();
    const name = currentAccount() ? currentAccount().username : undefined;
    const created = await api("POST", "/api/tables", {
      rules: this.family, clock: this.clock, casual: true, public: false,
      seats: [{ kind: "human", name }].concat(Array.from({ length: this.presets[this.family].players - 1 }, () => ({ kind: "bot", level }))),
    });
    holdSeat(created.table.id, created.seat, created.token);
    navigate(`/t/${created.table.id}`);
  }

  /** One waiting seek in the list, with a button to accept it (not one's own; a guest, casual ones). */
  seekItem(seek) {
    const account = currentAccount();
    const text = seek.rated
      ? t("quick.seek", { name: seek.username, family: familyName(seek.family), clock: seek.clock, rating: seek.rating })
      : t("quick.seekCasual", { name: seek.username, family: familyName(seek.family), clock: seek.clock });
    const mine = this.seek && this.seek.id === seek.id;
    const open = !mine && !(account && !seek.guest && seek.username === account.username) && (account || !seek.rated);
    return h("li", { "data-seek": seek.id },
      h("span", {}, text),
      open && h("button", {
        type: "button", class: "small", id: `accept-${seek.id}`,
        "aria-label": t("quick.acceptLabel", { name: seek.username }), onclick: () => this.find(seek),
      }, t("quick.accept")));
  }

  /** The list of waiting seeks alone (an accept button that had the focus keeps it). */
  renderSeeks() {
    const focused = this.seekList.contains(document.activeElement) ? document.activeElement.id : null;
    this.seekList.replaceChildren(
      ...(this.seeks.length ? this.seeks.map((s) => this.seekItem(s)) : [h("li", { class: "muted" }, t("quick.noSeeks"))]));
    if (focused) document.getElementById(focused)?.focus();
  }

  render() {
    const account = currentAccount();
    this.renderSeeks();
    let body;
    if (this.seek && this.seek.status === "waiting") {
      body = h("div", { class: "quick-waiting" },
        h("p", { role: "status", id: "quick-status" }, t("quick.searching", { family: familyName(this.family), clock: this.clock, seconds: Math.round(this.seek.waited || 0) })),
        h("div", { class: "row" },
          h("button", { type: "button", id: "quick-cancel", onclick: () => this.cancel() }, t("quick.cancel")),
          this.seek.offer_bot && h("button", { type: "button", class: "primary", id: "quick-bot", onclick: () => this.playBot() },
            t("quick.playBot", { level: t(`level.${this.seek.bot_level}`) }))));
    } else {
      body = h("form", { class: "row quick-form", onsubmit: (e) => { e.preventDefault(); this.find(); } },
        h("label", { class: "field inline" }, h("span", {}, t("quick.family")),
          h("select", { id: "quick-family", onchange: (e) => { this.family = e.target.value; } },
            Object.keys(this.presets).map((name) => h("option", { value: name, selected: name === this.family }, familyName(name))))),
        h("label", { class: "field inline" }, h("span", {}, t("quick.clock")),
          h("select", { id: "quick-clock", onchange: (e) => { this.clock = Number(e.target.value); } },
            CLOCKS.map((seconds) => h("option", { value: seconds, selected: seconds === this.clock }, t("quick.seconds", { n: seconds }))))),
        account
          ? h("label", { class: "inline check" }, h("input", {
            type: "checkbox", id: "quick-rated", checked: this.rated,
            onchange: (e) => { this.rated = e.target.checked; localStorage.setItem("kseri.quickRated", this.rated ? "1" : "0"); this.render(); },
          }), " ", t("quick.rated"))
          : null,
        h("button", { type: "submit", class: "primary", id: "quick-find" }, t("quick.find")));
    }
    this.element.replaceChildren(
      h("h2", { id: "quick-game-title" }, t(this.wantsRated() ? "quick.title" : "quick.titleCasual")),
      h("p", { class: "muted" }, t(this.wantsRated() ? "quick.help" : "quick.helpCasual")),
      account ? "" : h("p", { class: "muted", id: "quick-guest" }, link("/account", t("quick.signIn"), { id: "quick-sign-in" })),
      body,
      this.error && h("p", { class: "error", role: "alert" }, this.error),
      h("h3", {}, t("quick.waiting")),
      this.seekList);
  }
}

/** A rating history as a small SVG line chart: the start, then one point per rated game, with
 *  the rating on the left axis and the dates of the first and last games below. */
function ratingChart(history) {
  const width = 340;
  const height = 110;
  const left = 40;
  const bottom = 20;
  const values = [START, ...history.map((entry) => entry.rating)];
  const low = Math.min(...values) - 20;
  const high = Math.max(...values) + 20;
  const x = (i) => left + 6 + (i * (width - left - 12)) / (values.length - 1);
  const y = (v) => height - bottom - 4 - ((v - low) * (height - bottom - 10)) / (high - low);
  const svg = (name, attributes, text = null) => {
    const node = document.createElementNS("http://www.w3.org/2000/svg", name);
    for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
    if (text !== null) node.textContent = text;
    return node;
  };
  const date = (at) => new Date(at * 1000).toLocaleDateString(currentLanguage(), { day: "numeric", month: "short" });
  const first = history.length ? date(history[0].at) : "";
  const last = history.length ? date(history[history.length - 1].at) : "";
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "rating-chart", role: "img",
    "aria-label": t("profile.chart", { from: values[0], to: values[values.length - 1], first, last }) });
  const top = Math.round(Math.max(...values));
  const bottomValue = Math.round(Math.min(...values));
  chart.append(...[
    svg("line", { class: "axis", x1: left, y1: 4, x2: left, y2: height - bottom }),
    svg("line", { class: "axis", x1: left, y1: height - bottom, x2: width - 2, y2: height - bottom }),
    svg("text", { class: "tick", x: left - 4, y: y(top) + 4, "text-anchor": "end" }, top),
    top !== bottomValue && svg("text", { class: "tick", x: left - 4, y: y(bottomValue) + 4, "text-anchor": "end" }, bottomValue),
    history.length > 0 && svg("text", { class: "tick date", x: history.length > 1 ? x(1) : width - 4, y: height - 5,
      "text-anchor": history.length > 1 ? "start" : "end" }, first),
    history.length > 1 && svg("text", { class: "tick date", x: width - 4, y: height - 5, "text-anchor": "end" }, last),
    svg("polyline", { points: values.map((v, i) => `${x(i)},${y(v)}`).join(" ") })].filter(Boolean));
  values.forEach((v, i) => {
    const dot = svg("circle", { cx: x(i), cy: y(v), r: 3 });
    dot.append(svg("title", {}, i ? `${date(history[i - 1].at)}: ${v}` : String(v)));
    chart.append(dot);
  });
  return chart;
}

/** The accuracy of each analysed game, oldest to newest (0–100, the marks of a random player and
 * of the expert bot dotted: docs/analysis.md), and how many games the figure covers. */
function accuracySection(trend, games) {
  const points = trend.filter((game) => game.accuracy !== null && game.accuracy !== undefined);
  if (!points.length) return h("p", { class: "muted", id: "accuracy-covers" }, t("profile.accuracyNone"));
  const width = 340;
  const height = 110;
  const left = 30;
  const bottom = 6;
  const x = (i) => (points.length === 1 ? (left + width) / 2 : left + 6 + (i * (width - left - 12)) / (points.length - 1));
  const y = (v) => height - bottom - (v * (height - bottom - 8)) / 100;
  const svg = (name, attributes, text = null) => {
    const node = document.createElementNS("http://www.w3.org/2000/svg", name);
    for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
    if (text !== null) node.textContent = text;
    return node;
  };
  const shown = (v) => Math.round(v);
  const date = (at) => new Date(at * 1000).toLocaleDateString(currentLanguage(), { day: "numeric", month: "short" });
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "accuracy-chart", id: "accuracy-chart", role: "img",
    "aria-label": t("profile.accuracyChart", { first: shown(points[0].accuracy), last: shown(points[points.length - 1].accuracy) }) });
  chart.append(
    svg("line", { class: "axis", x1: left, y1: 4, x2: left, y2: height - bottom }),
    ...[0, 50, 100].map((v) => svg("text", { class: "tick", x: left - 4, y: y(v) + 4, "text-anchor": "end" }, v)),
    ...[53, 75].map((v) => svg("line", { class: "mark", x1: left, y1: y(v), x2: width - 2, y2: y(v) })),
    svg("polyline", { points: points.map((game, i) => `${x(i)},${y(game.accuracy)}`).join(" ") }));
  points.forEach((game, i) => {
    const dot = svg("circle", { cx: x(i), cy: y(game.accuracy), r: 3, "data-accuracy": game.accuracy });
    dot.append(svg("title", {}, `${date(game.created)}: ${shown(game.accuracy)}%`));
    chart.append(dot);
  });
  const mean = points.reduce((sum, game) => sum + game.accuracy, 0) / points.length;
  return h("div", { class: "accuracy-box" }, chart,
    h("p", { class: "muted", id: "accuracy-covers" }, tn("profile.accuracyCovers", points.length, { games, mean: shown(mean) })));
}

/** A player's results in events (GET /api/players/NAME/results), or null when unknown. */
async function loadResults(username) {
  try {
    return await api("GET", `/api/players/${encodeURIComponent(username)}/results`);
  } catch {
    return null;
  }
}

/** The profile's results in events: each tournament's place of how many and points, each
 *  finished challenge won, lost or drawn against whom (newest first); null when unknown. */
function resultsSection(found) {
  if (!found) return null;
  const tournaments = found.tournaments.map((entry) => h("li", { class: "result-tournament", "data-tournament": entry.id },
    link(`/tournaments/${entry.id}`, entry.name), " · ",
    h("span", { class: "result-place" }, t(entry.status === "finished" ? "profile.place" : "profile.placeNow",
      { place: entry.place, of: entry.entrants })), " · ",
    entry.matchpoints === null ? tn("profile.points", entry.points)
      : t("profile.matchpoints", { points: entry.points, matchpoints: entry.matchpoints })));
  const challenges = found.challenges.map((entry) => h("li", { class: `result-challenge ${entry.result}`, "data-challenge": entry.id },
    h("span", { class: `result ${entry.result}` }, t(`profile.challenge.${entry.result}`)), " ",
    link(`/challenges/${entry.id}`, t("profile.challengeAgainst", { name: entry.opponent })), " · ",
    familyName(entry.rules), " · ", t("profile.challengeDeals", { n: entry.deals, difference: entry.difference > 0 ? `+${entry.difference}` : String(entry.difference) }),
    entry.rated ? "" : h("span", { class: "muted" }, " · ", t("challenge.casual"))));
  return h("section", { class: "panel profile-results", id: "profile-results", "aria-labelledby": "results-title" },
    h("h2", { id: "results-title" }, t("profile.results")),
    h("h3", {}, t("profile.tournaments")),
    tournaments.length ? h("ul", { class: "results-list", id: "result-tournaments" }, tournaments)
      : h("p", { class: "muted", id: "result-tournaments" }, t("profile.noTournaments")),
    h("h3", {}, t("profile.challenges")),
    challenges.length ? h("ul", { class: "results-list", id: "result-challenges" }, challenges)
      : h("p", { class: "muted", id: "result-challenges" }, t("profile.noChallenges")));
}

export class ProfileScreen {
  constructor(root, username) {
    this.root = root;
    this.username = username;
    this.profile = null;
    this.games = [];
    this.filters = { family: "", result: "" };
    this.error = "";
    this.moderation = new ProfileModeration(username, () => this.render());
  }

  async start() {
    this.root.replaceChildren(h("p", { class: "loading" }, t("table.loading")));
    try {
      this.profile = await api("GET", `/api/players/${encodeURIComponent(this.username)}`);
      this.daily = await loadDailyHistory(this.username);
      this.results = await loadResults(this.username);
      await this.loadGames();
      await this.moderation.load();
    } catch (error) {
      this.error = error.message;
    }
    this.render();
  }

  async loadGames() {
    const query = new URLSearchParams(Object.entries(this.filters).filter(([, v]) => v));
    const response = await fetch(`/api/players/${encodeURIComponent(this.username)}/games?${query}`);
    const text = await response.text();
    this.games = text.split("\n").filter((line) => line.trim()).map((line) => JSON.parse(line));
  }

  destroy() {}

  refresh() {
    this.render();
  }

  async filter(changes) {
    Object.assign(this.filters, changes);
    await this.loadGames();
    this.render();
  }

  gameRow(record) {
    const rules = record.rules;
    const sides = rules.partnerships ? rules.players / 2 : rules.players;
    const side = record.seat % sides;
    const result = record.winner === null ? "draw" : record.winner === side ? "win" : "loss";
    const others = (record.names || []).filter((_, seat) => seat !== record.seat).join(", ");
    return h("li", { class: `game-item ${result}`, "data-table": record.table },
      h("span", { class: `result ${result}` }, t(`profile.${result}`)),
      h("span", {}, familyName(rules.name), " · ", t("profile.against", { names: others }), " · ", record.totals.join(" – ")),
      record.offline && h("span", { class: "muted offline-mark" }, t("profile.offline")),
      link(`/t/${record.table}#replay`, t("profile.replay"), { class: "button small" }),
      !record.offline && this.moderation.reportButton(record.table));
  }

  render() {
    if (this.error) {
      this.root.replaceChildren(h("div", { class: "panel center" }, h("h1", {}, this.username), h("p", { class: "error", role: "alert" }, this.error)));
      return;
    }
    const p = this.profile;
    const stats = p.statistics;
    const percent = (x) => (x === null ? "–" : `${Math.round(100 * x)}%`);
    this.root.replaceChildren(h("div", { class: "profile" },
      h("h1", { id: "profile-name" }, p.username),
      h("section", { class: "panel", "aria-labelledby": "ratings-title" },
        h("h2", { id: "ratings-title" }, t("profile.ratings")),
        p.ratings.length
          ? h("ul", { class: "rating-list" }, p.ratings.map((r) => h("li", { "data-family": r.family },
            h("strong", {}, familyName(r.family)), " ",
            h("span", { class: "rating", title: r.provisional ? t("profile.provisional") : "" }, r.shown), " ",
            h("span", { class: "muted" }, tn("profile.rated", r.games)),
            ratingChart(r.history))))
          : h("p", { class: "muted" }, t("profile.unrated"))),
      refundsSection(p.refunds),
      h("section", { class: "panel", "aria-labelledby": "stats-title" },
        h("h2", { id: "stats-title" }, t("profile.statistics")),
        h("dl", { class: "stats" },
          h("dt", {}, t("profile.games")), h("dd", {}, stats.games),
          h("dt", {}, t("profile.winRate")), h("dd", {}, percent(stats.win_rate)),
          h("dt", {}, t("profile.pointsPerRound")), h("dd", {}, stats.points_per_round),
          h("dt", {}, t("profile.kserisPerRound")), h("dd", {}, stats.kseris_per_round),
          h("dt", {}, t("profile.jackKserisPerRound")), h("dd", {}, stats.jack_kseris_per_round),
          h("dt", { class: "accuracy" }, t("profile.accuracy")), h("dd", { class: "accuracy" }, accuracySection(stats.accuracy, stats.games)))),
      dailyHistorySection(this.daily),
      resultsSection(this.results),
      h("section", { class: "panel", "aria-labelledby": "games-title" },
        h("h2", { id: "games-title" }, t("profile.gamesTitle")),
        h("div", { class: "row" },
          h("label", { class: "field inline" }, h("span", {}, t("quick.family")),
            h("select", { id: "games-family", onchange: (e) => this.filter({ family: e.target.value }) },
              h("option", { value: "" }, t("profile.all")),
              ["greek", "classic", "pisti", "children", "three-player", "partnership", "faro"].map((name) =>
                h("option", { value: name, selected: name === this.filters.family }, familyName(name))))),
          h("label", { class: "field inline" }, h("span", {}, t("profile.result")),
            h("select", { id: "games-result", onchange: (e) => this.filter({ result: e.target.value }) },
              h("option", { value: "" }, t("profile.all")),
              ["win", "loss", "draw"].map((r) => h("option", { value: r, selected: r === this.filters.result }, t(`profile.${r}`)))))),
        this.games.length
          ? h("ul", { class: "game-list", id: "game-list" }, this.games.map((record) => this.gameRow(record)))
          : h("p", { class: "muted", id: "game-list" }, t("profile.noGames"))),
      this.moderation.render(this.games)));
  }
}

export class LeaderboardScreen {
  constructor(root, family) {
    this.root = root;
    this.family = family || "greek";
    this.board = null;
    this.bots = {};
    this.error = "";
  }

  async start() {
    try {
      [this.board, this.bots] = await Promise.all([
        api("GET", `/api/leaderboard/${encodeURIComponent(this.family)}`),
        api("GET", "/api/ratings/bots").then((answer) => answer.families[this.family] || {}),
      ]);
    } catch (error) {
      this.error = error.message;
    }
    this.render();
  }

  destroy() {}

  refresh() {
    this.render();
  }

  render() {
    const choose = h("select", { id: "leaderboard-family", onchange: (e) => navigate(`/leaderboard/${e.target.value}`) },
      ["greek", "classic", "pisti", "children", "three-player", "partnership", "faro"].map((name) =>
        h("option", { value: name, selected: name === this.family }, familyName(name))));
    const rows = this.board ? this.board.players.map((p) => h("tr", {},
      h("td", {}, p.rank),
      h("td", {}, link(`/p/${encodeURIComponent(p.username)}`, p.username)),
      h("td", { class: "rating" }, p.shown),
      h("td", {}, p.games))) : [];
    const bots = Object.entries(this.bots);
    this.root.replaceChildren(h("div", { class: "leaderboard" },
      h("h1", {}, t("board.title", { family: familyName(this.family) })),
      h("label", { class: "field inline" }, h("span", {}, t("quick.family")), choose),
      this.error && h("p", { class: "error", role: "alert" }, this.error),
      h("p", { class: "muted" }, t("board.help")),
      rows.length
        ? h("table", { class: "board", id: "leaderboard" },
          h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, t("account.username")), h("th", {}, t("board.rating")), h("th", {}, t("profile.games")))),
          h("tbody", {}, rows))
        : h("p", { class: "muted", id: "leaderboard" }, t("board.empty")),
      bots.length > 0 && h("p", { class: "muted", id: "bot-ratings" },
        t("board.bots"), " ", bots.map(([level, rating]) => `${t(`level.${level}`)} ${rating}`).join(" · "))));
  }
}
