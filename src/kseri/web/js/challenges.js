// Duplicate challenges (/challenges, /challenges/<id>; docs/events.md): challenge a player by
// name or post an open challenge to a set of 4–16 deals; each plays the same deals against the
// same bots (the daily's deal panel) before the deadline; once both have finished, the deals side
// by side (the daily's side-by-side table) and the difference of points. Accounts only. Rated or
// casual; its author may withdraw it until the other side starts; once over, each side's deals
// download as records `kseri verify` checks.
import { api } from "./api.js";
import { accountApi, currentAccount } from "./account.js";
import { dealPanel, signed, useDailyStyle, versusDeals } from "./daily.js";
import { announce, h, navigate } from "./dom.js";
import { t, tn } from "./i18n.js";
import { presetName } from "./rules-help.js";

const FAMILIES = ["greek", "pisti"];
const HOURS = [24, 48, 72, 168];

function link(href, text, attrs = {}) {
  return h("a", { href, ...attrs, onclick: (e) => { e.preventDefault(); navigate(href); } }, text);
}

function when(iso) {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

function errorText(error) {
  return t("challenge.error", { message: error.message });
}

/** Who is in a challenge, in one line: "ann v bob", or "ann (open)". */
function players(c) {
  return c.opponent ? t("challenge.pair", { a: c.author.name, b: c.opponent.name })
    : t("challenge.openBy", { name: c.author.name });
}

/** A challenge's state in words, from the caller's side. */
export function statusText(c) {
  if (c.status === "open") return t("challenge.status.open");
  if (c.status === "invited") {
    return c.you === "opponent" ? t("challenge.status.invitedYou", { name: c.author.name })
      : t("challenge.status.invited", { name: c.opponent.name });
  }
  if (c.status === "accepted") return t("challenge.status.accepted");
  if (c.status === "declined") return t("challenge.status.declined", { name: c.opponent.name });
  if (c.status === "withdrawn") return t("challenge.status.withdrawn", { name: c.author.name });
  if (c.status === "finished") {
    return c.winner === null ? t("challenge.status.tie")
      : t("challenge.status.won", { name: c.winner, n: Math.abs(c.difference) });
  }
  if (c.never_accepted) return t("challenge.status.expiredUnanswered");
  if (c.never_played.length) return t("challenge.status.expiredNeverPlayed", { names: c.never_played.join(", ") });
  return t("challenge.status.expiredUnfinished", { names: c.unfinished.join(", ") });
}

/** The challenge invitations waiting for the signed-in player's answer ([] for a guest). */
export async function loadInvitations() {
  if (!currentAccount()) return [];
  try {
    return (await api("GET", "/api/challenges")).invitations;
  } catch {
    return [];
  }
}

/** The lobby's box of challenge invitations, each a link to its page (null when none). */
export function invitationsBox(invitations) {
  if (!invitations || !invitations.length) return null;
  return h("section", { class: "panel challenge-invitations", id: "challenge-invitations",
    "aria-labelledby": "challenge-invitations-title" },
  h("h2", { id: "challenge-invitations-title" }, t("challenge.invitations")),
  h("ul", { class: "challenge-list" }, invitations.map((c) => h("li", { class: "challenge-invitation" },
    link(`/challenges/${c.id}`, t("challenge.invitedBy", { name: c.author.name, rules: presetName(c.rules),
      n: c.deals }))))));
}

/** The challenges page: guests are told why they cannot challenge; an account makes a
 * challenge, answers its invitations, follows its challenges and takes open ones. */
export class ChallengesScreen {
  constructor(root) {
    this.root = root;
    this.data = null;
    this.error = "";
    this.busy = false;
    this.form = { opponent: "", rules: "greek", deals: 8, hours: 48, rated: false };
    this.page = null; // an account's page, drawn once: its form stays put while the lists load
  }

  async start() {
    useDailyStyle();
    this.render();
    await this.load();
  }

  destroy() {}

  refresh() {
    this.page = null; // the language changed: every label anew
    this.render();
  }

  async load() {
    if (currentAccount()) {
      try {
        this.data = await api("GET", "/api/challenges");
      } catch (error) {
        this.error = errorText(error);
      }
    }
    this.render();
  }

  async create(event) {
    event.preventDefault();
    if (this.busy) return;
    this.busy = true;
    this.error = "";
    const body = { rules: this.form.rules, deals: Number(this.form.deals), hours: Number(this.form.hours),
      rated: this.form.rated };
    if (this.form.opponent.trim()) body.opponent = this.form.opponent.trim();
    try {
      const made = await accountApi("POST", "/api/challenges", body);
      this.busy = false;
      navigate(`/challenges/${made.id}`);
      return;
    } catch (error) {
      this.error = errorText(error);
    }
    this.busy = false;
    this.render();
  }

  async answer(id, accept) {
    try {
      await accountApi("POST", `/api/challenges/${id}/${accept ? "accept" : "decline"}`, {});
      if (accept) {
        navigate(`/challenges/${id}`);
        return;
      }
    } catch (error) {
      this.error = errorText(error);
    }
    await this.load();
  }

  render() {
    const title = h("h1", { class: "daily-title" }, t("challenge.title"));
    const back = h("p", {}, link("/", t("daily.back"), { class: "button" }));
    if (!currentAccount()) {
      this.page = null;
      this.root.replaceChildren(h("main", { class: "daily challenges", id: "challenges" }, title,
        h("section", { class: "panel challenge-guest", "aria-labelledby": "challenge-guest-title" },
          h("h2", { id: "challenge-guest-title" }, t("challenge.guestTitle")),
          h("p", { id: "challenge-guest" }, t("challenge.guest")),
          link("/account", t("challenge.signIn"), { class: "button primary", id: "challenge-sign-in" })),
        back));
      return;
    }
    // The form is drawn once and kept: redrawn when the lists arrive, it would lose what is
    // being typed into it (and its focus).
    if (!this.page) {
      this.page = { error: h("div"), form: this.renderForm(), lists: h("div") };
      this.root.replaceChildren(h("main", { class: "daily challenges", id: "challenges" }, title,
        this.page.error, this.page.form, this.page.lists, back));
    }
    this.page.error.replaceChildren(...(this.error ? [h("p", { class: "daily-error", role: "alert" }, this.error)] : []));
    this.page.form.querySelector("#challenge-send").disabled = this.busy;
    this.page.lists.replaceChildren(...(this.data ? [
      this.renderList("challenge-invites", t("challenge.invitations"), this.data.invitations, true),
      this.renderList("challenge-mine", t("challenge.mine"), this.data.challenges, false),
      this.renderList("challenge-open", t("challenge.openOnes"), this.data.open, true)] : []));
  }

  renderForm() {
    const f = this.form;
    const field = (id, label, control, help = null) => h("label", { class: "field challenge-field", for: id },
      h("span", {}, label), control, help && h("small", { class: "muted" }, help));
    return h("form", { class: "panel challenge-form", id: "challenge-form", "aria-labelledby": "challenge-form-title",
      onsubmit: (e) => this.create(e) },
    h("h2", { id: "challenge-form-title" }, t("challenge.new")),
    h("p", {}, t("challenge.intro")),
    field("challenge-opponent", t("challenge.opponent"), h("input", { id: "challenge-opponent", type: "text",
      maxlength: 40, autocomplete: "off", value: f.opponent, oninput: (e) => { f.opponent = e.target.value; } }),
    t("challenge.opponentHelp")),
    field("challenge-rules", t("challenge.rules"), h("select", { id: "challenge-rules",
      onchange: (e) => { f.rules = e.target.value; } },
    FAMILIES.map((family) => h("option", { value: family, selected: family === f.rules }, presetName(family))))),
    field("challenge-deals", t("challenge.deals"), h("input", { id: "challenge-deals", type: "number", min: 4, max: 16,
      value: f.deals, oninput: (e) => { f.deals = e.target.value; } })),
    field("challenge-hours", t("challenge.hours"), h("select", { id: "challenge-hours",
      onchange: (e) => { f.hours = e.target.value; } },
    HOURS.map((hours) => h("option", { value: hours, selected: hours === Number(f.hours) }, tn("challenge.days", hours / 24))))),
    ratedField(f),
    h("button", { type: "submit", class: "button primary", id: "challenge-send", disabled: this.busy },
      t("challenge.send")));
  }

  renderList(id, title, list, answering) {
    return h("section", { class: "panel", id, "aria-labelledby": `${id}-title` },
      h("h2", { id: `${id}-title` }, title),
      list.length ? h("ul", { class: "challenge-list" }, list.map((c) => h("li", { class: "challenge-item", "data-id": c.id },
        link(`/challenges/${c.id}`, players(c), { class: "challenge-link" }), " · ",
        t("challenge.what", { rules: presetName(c.rules), n: c.deals }), " · ",
        h("span", { class: "challenge-kind" }, t(c.rated ? "challenge.rated" : "challenge.casual")), " · ",
        h("span", { class: "challenge-status" }, statusText(c)),
        answering && c.status === "invited" ? h("span", { class: "challenge-actions" },
          h("button", { type: "button", class: "button primary challenge-accept", onclick: () => this.answer(c.id, true) },
            t("challenge.accept")),
          h("button", { type: "button", class: "button challenge-decline", onclick: () => this.answer(c.id, false) },
            t("challenge.decline"))) : null,
        answering && c.status === "open" ? h("button", { type: "button", class: "button primary challenge-take",
          onclick: () => this.answer(c.id, true) }, t("challenge.take")) : null)))
        : h("p", { class: "muted" }, t("challenge.none")));
  }
}

/** One challenge: answering it, playing one's set, waiting for the other player, and once
 * both have finished the result and the deals side by side. */
export class ChallengeScreen {
  constructor(root, id) {
    this.root = root;
    this.id = id;
    this.data = null;
    this.versus = null;
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
    this.error = "";
    try {
      this.data = await api("GET", `/api/challenges/${this.id}`);
      if (this.data.status === "finished") this.versus = await api("GET", `/api/challenges/${this.id}/versus`);
    } catch (error) {
      this.error = errorText(error);
    }
    this.render();
  }

  async act(path, body = {}) {
    if (this.busy) return null;
    this.busy = true;
    this.render();
    let answer = null;
    try {
      answer = await accountApi("POST", `/api/challenges/${this.id}/${path}`, body);
    } catch (error) {
      this.error = errorText(error);
    }
    this.busy = false;
    return answer;
  }

  async answer(accept) {
    await this.act(accept ? "accept" : "decline");
    await this.load();
  }

  async withdraw() {
    await this.act("withdraw");
    await this.load();
  }

  async begin() {
    const run = await this.act("start");
    if (run) this.data.run = run;
    this.render();
  }

  async play(card) {
    const before = this.data.run.results.length;
    const run = await this.act("play", { card });
    if (run) {
      this.data.run = run;
      if (run.results.length > before) {
        announce(t("daily.dealDone", { n: before + 1, result: signed(run.results[before]) }));
      }
      if (run.finished) {
        await this.load();
        return;
      }
    }
    this.render();
  }

  render() {
    const body = [h("h1", { class: "daily-title" }, t("challenge.title"))];
    if (this.error) body.push(h("p", { class: "daily-error", role: "alert" }, this.error));
    const c = this.data;
    if (c) {
      body.push(h("section", { class: "panel challenge-head", "aria-labelledby": "challenge-players" },
        h("h2", { id: "challenge-players" }, players(c)),
        h("p", {}, t("challenge.what", { rules: presetName(c.rules), n: c.deals }), " · ",
          h("span", { id: "challenge-kind" }, t(c.rated ? "challenge.rated" : "challenge.casual")), " · ",
          t("challenge.deadline", { when: when(c.deadline) })),
        h("p", { class: "challenge-status", id: "challenge-status", role: "status" }, statusText(c)),
        h("p", { class: "daily-commitment", title: c.commitment }, c.secret
          ? t("challenge.secret", { hash: c.commitment.slice(0, 16), secret: c.secret.slice(0, 16) })
          : t("daily.commitment", { hash: c.commitment.slice(0, 16) })),
        this.renderActions(c),
        withdrawButton(c, this.busy, () => this.withdraw()),
        ratingLine(c),
        recordLinks(c)));
      const mine = c.you ? c[c.you] : null;
      const playing = ["open", "invited", "accepted"].includes(c.status) && mine
        && !(c.you === "opponent" && c.status === "invited");
      if (playing && c.run && !c.run.finished) body.push(dealPanel(c.run, !this.busy, (card) => this.play(card)));
      else if (mine && mine.results) body.push(this.renderMine(c, mine));
      if (this.versus) body.push(this.renderVersus(c));
    }
    body.push(h("p", {}, link("/challenges", t("challenge.all"), { class: "button" })));
    this.root.replaceChildren(h("main", { class: "daily challenge", id: "challenge" }, body));
  }

  renderActions(c) {
    if (!currentAccount()) return h("p", { class: "challenge-guest" }, t("challenge.guest"));
    if (c.you === "opponent" && c.status === "invited") {
      return h("p", { class: "challenge-actions" },
        h("button", { type: "button", class: "button primary challenge-accept", disabled: this.busy,
          onclick: () => this.answer(true) }, t("challenge.accept")), " ",
        h("button", { type: "button", class: "button challenge-decline", disabled: this.busy,
          onclick: () => this.answer(false) }, t("challenge.decline")));
    }
    if (!c.you && c.status === "open") {
      return h("button", { type: "button", class: "button primary challenge-take", disabled: this.busy,
        onclick: () => this.answer(true) }, t("challenge.take"));
    }
    const mine = c.you ? c[c.you] : null;
    const may = ["open", "invited", "accepted"].includes(c.status) && mine && !c.run;
    if (may) {
      return h("button", { type: "button", class: "button primary challenge-play", id: "challenge-play",
        disabled: this.busy, onclick: () => this.begin() }, t("challenge.play", { n: c.deals }));
    }
    return null;
  }

  renderMine(c, mine) {
    const other = c.you === "author" ? c.opponent : c.author;
    return h("section", { class: "panel challenge-mine", "aria-labelledby": "challenge-mine-title" },
      h("h2", { id: "challenge-mine-title" }, t("challenge.yours")),
      h("p", { id: "challenge-results" }, t("challenge.results", { results: mine.results.map(signed).join(", ") })),
      c.status !== "finished" && other && c.status !== "expired"
        ? h("p", { class: "challenge-waiting" }, t("challenge.waiting", { name: other.name })) : null);
  }

  renderVersus(c) {
    const [a, b] = this.versus.names;
    return h("section", { class: "panel daily-versus", "aria-labelledby": "challenge-result" },
      h("h2", { id: "challenge-result" }, c.winner === null ? t("challenge.tieOver", { n: c.deals })
        : t("challenge.gained", { name: c.winner, n: Math.abs(c.difference), deals: c.deals })),
      versusDeals(this.versus.deals, a, b));
  }
}

/** The form's choice between a rated and a casual challenge (casual unless ticked). */
function ratedField(form) {
  return h("label", { class: "inline check challenge-rated", for: "challenge-rated" },
    h("input", { type: "checkbox", id: "challenge-rated", checked: form.rated,
      onchange: (e) => { form.rated = e.target.checked; } }),
    " ", t("challenge.ratedChoice"),
    h("small", { class: "muted" }, " ", t("challenge.ratedHelp")));
}

/** The author's button to withdraw a challenge the other side has not started (null otherwise). */
function withdrawButton(c, busy, withdraw) {
  const waiting = ["open", "invited", "accepted"].includes(c.status);
  const untouched = !c.opponent || c.opponent.progress === "not-started";
  if (c.you !== "author" || !waiting || !untouched) return null;
  return h("p", {}, h("button", { type: "button", class: "button challenge-withdraw", id: "challenge-withdraw",
    disabled: busy, onclick: withdraw }, t("challenge.withdraw")));
}

/** A finished rated challenge's effect on the ratings, each player's before → after (change). */
function ratingLine(c) {
  const rating = c.rating;
  if (!rating) return null;
  if (rating.status !== "rated") {
    return h("p", { class: "challenge-rating muted", id: "challenge-rating" }, t(`challenge.rating.${rating.status}`));
  }
  const parts = Object.entries(rating.players).map(([name, r]) =>
    t("challenge.rating.change", { name, before: r.before.shown, after: r.after.shown,
      change: r.change > 0 ? `+${r.change}` : String(r.change) }));
  return h("p", { class: "challenge-rating", id: "challenge-rating" }, parts.join(" · "));
}

/** Once a challenge is over, each side's played deals as a records file for `kseri verify`. */
function recordLinks(c) {
  if (!["finished", "expired", "declined", "withdrawn"].includes(c.status)) return null;
  const sides = ["author", "opponent"].filter((side) => c[side] && c[side].progress !== "not-started");
  if (!sides.length) return null;
  return h("p", { class: "challenge-records", id: "challenge-records" }, t("challenge.records"), " ",
    sides.map((side) => h("a", { class: "button small challenge-record", href: `/api/challenges/${c.id}/records/${side}`,
      download: `challenge-${c.id}-${side}.jsonl`, "data-side": side }, t("challenge.recordOf", { name: c[side].name }))));
}
