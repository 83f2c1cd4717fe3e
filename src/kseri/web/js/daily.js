// The daily deal (/daily, /daily/<family>): today's sets and their commitments, playing one
// (three deals against the day's seeded bots; the server answers each card with the bots'
// plays), the score deal by deal beside the master's, and the day's ladder (docs/events.md).
// An attempt's id and token are kept in localStorage so a reload resumes it.
import { api } from "./api.js";
import { accountApi, currentAccount } from "./account.js";
import { cardName, cardShort, cardSvg } from "./cards.js";
import { announce, h, navigate } from "./dom.js";
import { t, tn } from "./i18n.js";
import { presetName } from "./rules-help.js";

const STYLE_ID = "daily-style";
const HELD_KEY = "kseri.daily";

function held() {
  try {
    return JSON.parse(localStorage.getItem(HELD_KEY)) || {};
  } catch {
    return {};
  }
}

function hold(day, family, attempt) {
  const all = held();
  for (const key of Object.keys(all)) if (!key.startsWith(day)) delete all[key];
  all[`${day}/${family}`] = { id: attempt.id, token: attempt.token };
  localStorage.setItem(HELD_KEY, JSON.stringify(all));
}

/** A result with its sign (+3, 0, -2). */
export function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

/** Load the daily's style sheet (the challenges' pages use it too). */
export function useDailyStyle() {
  if (!document.getElementById(STYLE_ID)) {
    document.head.append(h("link", { rel: "stylesheet", href: "/static/css/daily.css", id: STYLE_ID }));
  }
}

/** A set's deal in play from the player's seat (a daily attempt's or a challenge's state):
 * the deal's number, the results so far, the centre, the points and the hand, whose cards call
 * onPlay(card) when `playable`. */
export function dealPanel(state, playable, onPlay) {
  const view = state.view;
  const mine = view.turn === 0 && playable;
  return h("section", { class: "panel daily-play", "aria-labelledby": "daily-deal" },
    h("h2", { id: "daily-deal" }, t("daily.deal", { n: state.round + 1, of: state.rounds })),
    h("p", { class: "daily-so-far" }, state.results.length
      ? t("daily.soFar", { results: state.results.map(signed).join(", ") }) : t("daily.first")),
    h("div", { class: "daily-centre", "aria-label": t("daily.centre") },
      view.centre_top ? h("span", { class: "daily-card", role: "img", "aria-label": cardName(view.centre_top) },
        cardSvg(view.centre_top)) : h("span", { class: "daily-empty" }, t("daily.emptyCentre")),
      h("span", { class: "daily-count" }, t("daily.centreSize", { n: view.centre_size }))),
    h("p", { class: "daily-points" }, t("daily.points", {
      mine: view.captured_sizes[0], theirs: view.captured_sizes.slice(1).join(", ") })),
    h("div", { class: "daily-hand", role: "group", "aria-label": t("daily.hand") },
      view.hand.map((card) => h("button", {
        type: "button", class: "daily-card daily-hand-card", "data-card": card, disabled: !mine,
        title: cardShort(card), onclick: () => onPlay(card),
      }, h("span", { class: "visually-hidden" }, cardName(card)), cardSvg(card)))));
}

/** The deals played by two players side by side (a daily's or a challenge's versus answer),
 * each folded under its results; the first where they parted is open. */
export function versusDeals(deals, a, b) {
  const parted = deals.findIndex((deal) => deal.parted !== null);
  return deals.map((deal, i) => versusDeal(deal, i, a, b, i === Math.max(parted, 0)));
}

/** One deal side by side: both players' plays, the first where they parted marked. */
function versusDeal(deal, i, a, b, open) {
  const rows = Math.max(deal.plays[0].length, deal.plays[1].length);
  const cell = (play) => (play ? h("td", { title: cardName(play[1]) },
    play[0] === 0 ? h("strong", {}, cardShort(play[1])) : cardShort(play[1])) : h("td", {}));
  return h("details", { class: "daily-versus-deal", open },
    h("summary", {}, h("h3", {}, t("daily.dealN", { n: i + 1 }), " ", t("daily.results", { a: signed(deal.results[0]),
      b: signed(deal.results[1]) }), " ", deal.parted === null ? t("daily.alike") : t("daily.parted", { n: deal.parted + 1 }))),
    h("table", { class: "daily-table daily-side-by-side" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, a), h("th", { scope: "col" }, b))),
      h("tbody", {}, Array.from({ length: rows }, (_, n) => h("tr", { class: n === deal.parted ? "daily-parted" : null },
        h("td", {}, n + 1), cell(deal.plays[0][n]), cell(deal.plays[1][n]))))));
}

export class DailyScreen {
  constructor(root, family, day = null) {
    this.root = root;
    this.family = family;
    this.day = day; // a past day's ladder (/daily/<family>/<day>)
    this.today = null;
    this.attempt = null; // {id, token, state}
    this.ladder = null;
    this.error = "";
    this.busy = false;
  }

  async start() {
    useDailyStyle();
    await this.load();
  }

  destroy() {}

  refresh() {
    this.render();
  }

  async load() {
    try {
      this.today = await api("GET", "/api/daily");
      if (this.day) {
        this.ladder = await api("GET", `/api/daily/${this.day}/${this.family}/ladder`);
        this.render();
        return;
      }
      const mine = this.family && held()[`${this.today.day}/${this.family}`];
      if (mine) {
        const state = await api("GET", `/api/daily/attempts/${mine.id}`, undefined, mine.token);
        this.attempt = { ...mine, state };
        if (state.finished) await this.loadLadder();
      }
    } catch (error) {
      this.error = t("daily.error", { message: error.message });
    }
    this.render();
  }

  async loadLadder() {
    const token = this.attempt ? this.attempt.token : undefined;
    try {
      this.ladder = await api("GET", `/api/daily/${this.today.day}/${this.family}/ladder`, undefined, token);
    } catch (error) {
      this.ladder = null;
      this.error = t("daily.error", { message: error.message });
    }
  }

  async begin(family) {
    if (this.busy) return;
    this.busy = true;
    this.family = family;
    this.error = "";
    try {
      const call = currentAccount() ? accountApi : api;
      const state = await call("POST", `/api/daily/${this.today.day}/${family}/start`, {});
      hold(this.today.day, family, state);
      this.attempt = { id: state.id, token: state.token, state };
      history.pushState(null, "", `/daily/${family}`);
    } catch (error) {
      this.error = error.code === "daily-taken" ? t("daily.taken") : t("daily.error", { message: error.message });
      if (error.code === "daily-taken") await this.loadLadder();
    }
    this.busy = false;
    this.render();
  }

  async play(card) {
    if (this.busy) return;
    this.busy = true;
    this.render();
    try {
      const state = await api("POST", `/api/daily/attempts/${this.attempt.id}/play`, { card }, this.attempt.token);
      const before = this.attempt.state.results.length;
      this.attempt.state = state;
      if (state.results.length > before) {
        announce(t("daily.dealDone", { n: before + 1, result: signed(state.results[before]) }));
      }
      if (state.finished) await this.loadLadder();
    } catch (error) {
      this.error = t("daily.error", { message: error.message });
    }
    this.busy = false;
    this.render();
  }

  render() {
    const body = [h("h1", { class: "daily-title" }, t("daily.title"))];
    if (this.error) body.push(h("p", { class: "daily-error", role: "alert" }, this.error));
    const state = this.attempt && this.attempt.state;
    if (state && !state.finished) body.push(this.renderPlay(state));
    else if (state) body.push(this.renderScore(state), this.renderLadder());
    else if (this.ladder) body.push(this.renderLadder());
    else if (this.today) body.push(this.renderDays());
    this.root.replaceChildren(h("main", { class: "daily", id: "daily" }, body));
  }

  renderDays() {
    return h("section", { class: "panel daily-days", "aria-labelledby": "daily-intro" },
      h("p", { id: "daily-intro" }, t("daily.intro")),
      h("p", { class: "daily-ranked" }, currentAccount() ? t("daily.ranked") : t("daily.guest")),
      h("ul", { class: "daily-list" }, this.today.dailies.map((daily) => h("li", { class: "daily-item" },
        h("span", { class: "daily-name" }, presetName(daily.rules)),
        h("span", { class: "daily-commitment", title: daily.commitment },
          t("daily.commitment", { hash: daily.commitment.slice(0, 16) })),
        h("button", {
          class: "button primary daily-start", "data-family": daily.rules, disabled: this.busy,
          onclick: () => this.begin(daily.rules),
        }, t("daily.play"))))));
  }

  renderPlay(state) {
    return dealPanel(state, !this.busy, (card) => this.play(card));
  }

  renderScore(state) {
    const score = state.score;
    return h("section", { class: "panel daily-score", "aria-labelledby": "daily-score-title" },
      h("h2", { id: "daily-score-title" }, t("daily.done", { place: score.place, pct: score.percentage })),
      state.ranked ? null : h("p", {}, t("daily.unranked")),
      h("ol", { class: "daily-deals" }, score.deals.map((deal, i) => h("li", { class: "daily-deal-line" },
        h("strong", {}, t("daily.dealN", { n: i + 1 })), " ",
        t("daily.versusMaster", { master: signed(deal.master), mine: signed(deal.result) }), " ",
        h("span", { class: "daily-pct" }, t("daily.percent", { pct: deal.percentage }))))));
  }

  renderLadder() {
    if (!this.ladder) return null;
    const mine = currentAccount() ? currentAccount().username : null;
    const closed = this.ladder.status === "closed";
    const base = this.ladder.ladder.find((row) => row.name === mine) || this.ladder.ladder[0];
    return h("section", { class: "panel daily-ladder", "aria-labelledby": "daily-ladder-title" },
      h("h2", { id: "daily-ladder-title" }, t("daily.ladder", { rules: presetName(this.ladder.rules),
        day: this.ladder.day, n: this.ladder.players })),
      this.ladder.ladder.length ? h("table", { class: "daily-table" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("daily.place")),
          h("th", { scope: "col" }, t("daily.player")), h("th", { scope: "col" }, t("daily.score")),
          closed ? h("th", { scope: "col" }, t("daily.compare")) : null)),
        h("tbody", {}, this.ladder.ladder.map((row) => h("tr", { class: row.name === mine ? "daily-me" : null },
          h("td", {}, row.place), h("td", {}, row.name), h("td", {}, `${row.percentage}%`),
          closed ? h("td", {}, row.id === base.id ? "" : versusLink(base, row)) : null))))
        : h("p", {}, t("daily.noLadder")),
      h("p", {}, h("a", { href: "/", class: "button", onclick: (e) => { e.preventDefault(); navigate("/"); } },
        t("daily.back"))));
  }
}

/** A player's daily history and streak (GET /api/daily/players/<name>), or null. */
export async function loadDailyHistory(username) {
  try {
    return await api("GET", `/api/daily/players/${encodeURIComponent(username)}`);
  } catch {
    return null;
  }
}

/** The profile's daily section: the streak, then each ranked daily (day, rules, place, %). */
export function dailyHistorySection(found) {
  if (!found) return null;
  return h("section", { class: "panel daily-history", "aria-labelledby": "daily-history-title" },
    h("h2", { id: "daily-history-title" }, t("daily.history")),
    h("p", { class: "daily-streak", id: "daily-streak" }, tn("daily.streak", found.streak)),
    found.history.length
      ? h("ul", { class: "daily-history-list" }, found.history.map((entry) => {
        const href = `/daily/${entry.rules}/${entry.day}`;
        return h("li", {}, h("a", { href, onclick: (e) => { e.preventDefault(); navigate(href); } },
          `${entry.day} · ${presetName(entry.rules)}`), ` · ${entry.place} · ${entry.percentage}%`);
      }))
      : h("p", { class: "muted" }, t("daily.noHistory")));
}

function versusLink(base, row) {
  const href = `/daily/versus/${base.id}/${row.id}`;
  return h("a", { href, class: "daily-versus-link", onclick: (e) => { e.preventDefault(); navigate(href); } },
    t("daily.versus", { a: base.name, b: row.name }));
}

/** Two attempts at the same deals side by side (/daily/versus/<a>/<b>): per deal both players'
 * plays, the first play where they parted marked, the results and who gained. */
export class DailyVersusScreen {
  constructor(root, first, second) {
    this.root = root;
    this.first = first;
    this.second = second;
    this.data = null;
    this.error = "";
  }

  async start() {
    useDailyStyle();
    try {
      this.data = await api("GET", `/api/daily/attempts/${this.first}/versus/${this.second}`);
    } catch (error) {
      this.error = t("daily.error", { message: error.message });
    }
    this.render();
  }

  destroy() {}

  refresh() {
    this.render();
  }

  render() {
    const body = [h("h1", { class: "daily-title" }, t("daily.title"))];
    if (this.error) body.push(h("p", { class: "daily-error", role: "alert" }, this.error));
    const data = this.data;
    if (data) {
      const [a, b] = data.names;
      body.push(h("section", { class: "panel daily-versus", "aria-labelledby": "daily-versus-title" },
        h("h2", { id: "daily-versus-title" }, t("daily.versusTitle", { a, b, rules: presetName(data.rules), day: data.day })),
        h("p", { class: "daily-gain", id: "daily-gain" }, t("daily.gained", { name: data.difference >= 0 ? a : b,
          n: Math.abs(data.difference) })),
        versusDeals(data.deals, a, b)));
    }
    this.root.replaceChildren(h("main", { class: "daily", id: "daily" }, body));
  }
}
