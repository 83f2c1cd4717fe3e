// Moderation in the page (docs/players.md): a player's blocks of accounts and of guests (listed
// and undone on the account page), what moderation says about them (a ban's reason, a warning),
// blocking and reporting from a profile (a report tied to one of the player's games), blocking
// the players met at a table once its match is over, the rating refunds a profile shows, and
// the moderators' page (/moderation): the reports queue, a player's history a page at a time
// with its fair-play signals, actions with a stated reason, bans of guests and addresses, the log.
import { accountApi, accountErrorText, currentAccount } from "./account.js";
import { api, heldSeat } from "./api.js";
import { h, navigate } from "./dom.js";
import { t } from "./i18n.js";

export const REPORT_REASONS = ["cheating", "boosting", "sandbagging", "abuse", "offensive-name", "stalling", "other"];
const ACTIONS = ["warn", "mute", "rated-ban", "ban", "unmute", "unrated-ban", "unban"];
const SIGNALS = ["boosting", "sandbagging", "assisted", "seek-spam"];

function when(at) {
  return new Date(at * 1000).toLocaleString();
}

function gameLink(table) {
  return h("a", { href: `/t/${table}#replay`, onclick: (e) => { e.preventDefault(); navigate(`/t/${table}#replay`); } },
    t("moderation.replay"));
}

function playerLink(name) {
  return h("a", { href: `/p/${encodeURIComponent(name)}`, onclick: (e) => { e.preventDefault(); navigate(`/p/${encodeURIComponent(name)}`); } }, name);
}

/** The signed-in account's blocks (of accounts, of guests) and standing (sanctions, warnings,
 * the moderator role). */
export async function loadModeration() {
  const [blocks, guests, standing] = await Promise.all([api("GET", "/api/blocks"), api("GET", "/api/blocks/guests"),
    api("GET", "/api/moderation/standing")]);
  return { blocks: blocks.blocks, guests: guests.guests, standing };
}

/** What moderation says to the player: a ban's reason, a mute's, warnings (nothing: null). */
export function standingNotice(standing) {
  const lines = [];
  const sanctions = standing.sanctions || {};
  for (const [kind, key] of [["ban", "moderation.banned"], ["rated-ban", "moderation.ratedBanned"], ["mute", "moderation.muted"]]) {
    if (sanctions[kind]) lines.push(t(key, { reason: sanctions[kind].reason }));
  }
  for (const warning of standing.warnings || []) lines.push(t("moderation.warning", { reason: warning.reason }));
  if (!lines.length) return null;
  return h("div", { class: "panel danger", id: "standing", role: "status" }, lines.map((line) => h("p", {}, line)));
}

/** The account page's list of blocked players, then of blocked guests (each with the table where
 * they met), each with its undo button. */
export function blocksPanel(blocks, unblock, busy, guests = [], unblockGuest = null) {
  return h("section", { class: "panel", id: "blocks-panel", "aria-labelledby": "blocks-title" },
    h("h2", { id: "blocks-title" }, t("moderation.blocksTitle")),
    h("p", { class: "muted" }, t("moderation.blocksHelp")),
    blocks.length
      ? h("ul", { class: "block-list", id: "block-list" }, blocks.map((name) => h("li", { "data-name": name },
        playerLink(name), " ",
        h("button", { type: "button", class: "small", disabled: busy, "aria-label": `${t("moderation.unblock")} ${name}`,
          onclick: () => unblock(name) }, t("moderation.unblock")))))
      : h("p", { class: "muted", id: "block-list" }, t("moderation.noBlocks")),
    h("h3", { id: "guest-blocks-title" }, t("moderation.guestBlocksTitle")),
    guests.length
      ? h("ul", { class: "block-list", id: "guest-block-list", "aria-labelledby": "guest-blocks-title" }, guests.map((guest) => h("li", { "data-guest": guest.id },
        t("moderation.guestMet", { name: guest.name }), " ", gameLink(guest.table), " ",
        h("button", { type: "button", class: "small", disabled: busy, "aria-label": `${t("moderation.unblock")} ${guest.name}`,
          onclick: () => unblockGuest(guest.id) }, t("moderation.unblock")))))
      : h("p", { class: "muted", id: "guest-block-list" }, t("moderation.noGuestBlocks")));
}

/** A finished match's "Block" buttons, one per other person seated (an account or a guest), for
 * a signed-in player who held a seat there (their seat's token proves it); nothing otherwise.
 * ``screen`` is the table's screen; what was blocked is kept on it. */
export function seatBlocks(screen) {
  if (!currentAccount() || screen.seat === null || screen.passPlay) return null;
  const others = screen.table.seats.filter((s) => s.kind === "human" && s.taken && s.seat !== screen.seat);
  if (!others.length) return null;
  screen.blocks = screen.blocks || {};
  const block = async (seat) => {
    const held = heldSeat(screen.tableId);
    try {
      const answer = await accountApi("POST", "/api/blocks/seats", { table: screen.tableId, seat, token: held ? held.token : null });
      screen.blocks[seat] = t("moderation.blockedSeat", { name: answer.blocked.name });
    } catch (error) {
      screen.blocks[seat] = accountErrorText(error);
    }
    screen.render();
  };
  return h("div", { class: "seat-blocks", id: "seat-blocks" }, others.map((s) => screen.blocks[s.seat]
    ? h("p", { class: "muted", role: "status", "data-seat": s.seat }, screen.blocks[s.seat])
    : h("button", { type: "button", class: "small", "data-seat": s.seat, onclick: () => block(s.seat) },
      t("moderation.blockSeat", { name: s.name || t("seat.player", { n: s.seat + 1 }) }))));
}

/** A profile's block button and report form, for a signed-in visitor (not on their own). */
export class ProfileModeration {
  constructor(username, redraw) {
    this.username = username;
    this.redraw = redraw;
    this.blocking = false;
    this.note = "";
    this.error = "";
    this.busy = false;
    this.reportTable = new URLSearchParams(location.search).get("report");
  }

  async load() {
    if (!currentAccount()) return;
    try {
      const answer = await api("GET", "/api/blocks");
      this.blocking = answer.blocks.some((name) => name.toLowerCase() === this.username.toLowerCase());
    } catch {
      this.blocking = false;
    }
  }

  async run(action) {
    this.busy = true;
    this.error = "";
    this.note = "";
    this.redraw();
    try {
      await action();
    } catch (error) {
      this.error = accountErrorText(error);
    }
    this.busy = false;
    this.redraw();
  }

  toggleBlock() {
    return this.run(async () => {
      const answer = this.blocking
        ? await accountApi("DELETE", `/api/blocks/${encodeURIComponent(this.username)}`)
        : await accountApi("POST", "/api/blocks", { username: this.username });
      this.blocking = answer.blocks.some((name) => name.toLowerCase() === this.username.toLowerCase());
    });
  }

  report(event) {
    event.preventDefault();
    const form = event.target;
    const body = { username: this.username, reason: form.reason.value, note: form.note.value.trim() || null, table: form.table.value || null };
    return this.run(async () => {
      await accountApi("POST", "/api/reports", body);
      this.note = t("moderation.reported");
      this.reportTable = null;
    });
  }

  /** A game row's "Report this game" button: the report form below, with this game chosen. */
  reportButton(table) {
    const account = currentAccount();
    if (!account || account.username.toLowerCase() === this.username.toLowerCase()) return null;
    return h("button", { type: "button", class: "small", onclick: () => {
      this.reportTable = table;
      this.redraw();
      document.getElementById("report-reason").focus();
    } }, t("moderation.reportGame"));
  }

  /** The panel (nothing for a guest or on one's own profile). */
  render(games) {
    const account = currentAccount();
    if (!account || account.username.toLowerCase() === this.username.toLowerCase()) return null;
    const choices = games.slice(0, 30);
    if (this.reportTable && !choices.some((g) => g.table === this.reportTable)) choices.unshift({ table: this.reportTable });
    return h("section", { class: "panel", id: "profile-moderation", "aria-labelledby": "report-title" },
      h("p", { class: "row" },
        h("button", { type: "button", id: "block-button", disabled: this.busy, "aria-pressed": this.blocking ? "true" : "false",
          onclick: () => this.toggleBlock() }, this.blocking ? t("moderation.unblock") : t("moderation.block")),
        this.blocking && h("span", { class: "muted", id: "blocking-note" }, t("moderation.blocked", { name: this.username }))),
      h("form", { class: "account-form", id: "report-form", onsubmit: (e) => this.report(e) },
        h("h2", { id: "report-title" }, t("moderation.reportTitle", { name: this.username })),
        h("label", { class: "field" }, h("span", {}, t("moderation.reason")),
          h("select", { name: "reason", id: "report-reason", required: true },
            REPORT_REASONS.map((reason) => h("option", { value: reason }, t(`moderation.reason.${reason}`))))),
        h("label", { class: "field" }, h("span", {}, t("moderation.game")),
          h("select", { name: "table", id: "report-table" },
            h("option", { value: "" }, t("moderation.noGame")),
            choices.map((game) => h("option", { value: game.table, selected: game.table === this.reportTable },
              game.names ? `${(game.names || []).join(" – ")} · ${(game.totals || []).join(" – ")}` : game.table)))),
        h("label", { class: "field" }, h("span", {}, t("moderation.note")),
          h("textarea", { name: "note", id: "report-note", maxlength: 280, rows: 2 })),
        this.error && h("p", { class: "error", role: "alert", id: "report-error" }, this.error),
        this.note && h("p", { class: "notice", role: "status", id: "report-notice" }, this.note),
        h("button", { type: "submit", id: "report-submit", disabled: this.busy }, t("moderation.send"))));
  }
}

/** A profile's rating refunds (nothing when none). */
export function refundsSection(refunds) {
  if (!refunds || !refunds.length) return null;
  return h("section", { class: "panel", id: "refunds", "aria-labelledby": "refunds-title" },
    h("h2", { id: "refunds-title" }, t("moderation.refundsTitle")),
    h("ul", {}, refunds.map((r) => h("li", { "data-family": r.family },
      t("moderation.refund", { change: r.change > 0 ? `+${r.change}` : `${r.change}`, family: r.family, games: r.games }),
      " ", h("span", { class: "muted" }, when(r.at))))));
}

/** The moderators' page (/moderation). */
export class ModerationScreen {
  constructor(root) {
    this.root = root;
    this.reports = [];
    this.log = [];
    this.bans = [];
    this.player = null; // the history open: its first page, later pages' games and signals added
    this.error = "";
    this.notice = "";
    this.refused = false;
    this.busy = false;
  }

  async start() {
    this.root.replaceChildren(h("p", { class: "loading" }, t("table.loading")));
    await this.load();
    this.render();
  }

  destroy() {}

  refresh() {
    this.render();
  }

  async load() {
    try {
      const [reports, log, bans] = await Promise.all([api("GET", "/api/moderation/reports"), api("GET", "/api/moderation/log"),
        api("GET", "/api/moderation/bans")]);
      this.reports = reports.reports;
      this.log = log.log;
      this.bans = bans.bans;
      if (this.player) this.player = await api("GET", `/api/moderation/players/${encodeURIComponent(this.player.username)}`);
    } catch (error) {
      if (error.status === 401 || error.status === 403) this.refused = true;
      else this.error = accountErrorText(error);
    }
  }

  async run(action) {
    if (this.busy) return;
    this.busy = true;
    this.error = "";
    this.notice = "";
    this.render();
    try {
      await action();
      this.notice = t("moderation.done");
    } catch (error) {
      this.error = accountErrorText(error);
    }
    await this.load();
    this.busy = false;
    this.render();
  }

  open(username) {
    return this.run(async () => {
      this.player = await api("GET", `/api/moderation/players/${encodeURIComponent(username)}`);
    });
  }

  /** The next page of the open history: its games and signals added below the others (the rest
   * of the page is not loaded again). */
  async more() {
    const p = this.player;
    if (this.busy || !p || !p.next) return;
    this.busy = true;
    this.error = "";
    this.render();
    try {
      const page = await api("GET", `/api/moderation/players/${encodeURIComponent(p.username)}/games?before=${encodeURIComponent(p.next)}`);
      const seen = new Set(p.signals.map((s) => `${s.kind} ${s.evidence}`));
      p.games = p.games.concat(page.games);
      p.signals = p.signals.concat(page.signals.filter((s) => !seen.has(`${s.kind} ${s.evidence}`)));
      p.next = page.next;
    } catch (error) {
      this.error = accountErrorText(error);
    }
    this.busy = false;
    this.render();
  }

  gameLine(g) {
    const facts = [g.family || "–", g.rated ? "★" : "", when(g.created)];
    if (g.result) facts.push(t(`moderation.result.${g.result}`), t("moderation.plays", { n: g.plays }), `${g.rating[0]} → ${g.rating[1]}`);
    if (g.accuracy !== null && g.accuracy !== undefined) facts.push(t("moderation.accuracy", { value: Math.round(g.accuracy) }));
    return h("li", { "data-table": g.table }, facts.filter(Boolean).join(" · "), " · ", gameLink(g.table));
  }

  banLine(ban) {
    const who = ban.kind === "address" ? t("moderation.addressBan", { address: ban.key })
      : t("moderation.guestBan", { name: ban.name || "?", seat: ban.seat + 1, table: ban.table });
    const until = ban.until ? t("moderation.banUntil", { until: when(ban.until) }) : t("moderation.banForever");
    return h("li", { class: "ban", "data-kind": ban.kind, "data-key": ban.key },
      h("p", {}, h("strong", {}, who), " · ", until, " · ", ban.reason),
      h("form", { class: "row", onsubmit: (e) => this.submit(e, "/api/moderation/bans/lift", (f) => ({ kind: ban.kind, key: ban.key, reason: f.reason.value })) },
        h("label", { class: "field inline" }, h("span", {}, t("moderation.why")), h("input", { name: "reason", required: true, maxlength: 500 })),
        h("button", { type: "submit", disabled: this.busy }, t("moderation.lift"))));
  }

  bansSection() {
    const days = () => h("label", { class: "field" }, h("span", {}, t("moderation.days")),
      h("input", { name: "days", type: "number", min: 1, max: 3650, step: "any" }));
    const why = () => h("label", { class: "field" }, h("span", {}, t("moderation.why")), h("input", { name: "reason", required: true, maxlength: 500 }));
    const daysOf = (f) => (f.days.value ? Number(f.days.value) : null);
    return h("section", { class: "panel", id: "bans-panel", "aria-labelledby": "bans-title" },
      h("h2", { id: "bans-title" }, t("moderation.bansTitle")),
      h("p", { class: "muted" }, t("moderation.bansHelp")),
      this.bans.length ? h("ul", { class: "ban-list", id: "ban-list" }, this.bans.map((b) => this.banLine(b)))
        : h("p", { class: "muted", id: "ban-list" }, t("moderation.noBans")),
      h("form", { class: "account-form", id: "ban-guest-form", onsubmit: (e) => this.submit(e, "/api/moderation/bans", (f) => ({
        kind: "guest", table: f.table.value.trim(), seat: Number(f.seat.value) - 1, reason: f.reason.value, days: daysOf(f) })) },
        h("h3", {}, t("moderation.banGuest")),
        h("label", { class: "field" }, h("span", {}, t("moderation.tableId")), h("input", { name: "table", id: "ban-guest-table", required: true, maxlength: 40 })),
        h("label", { class: "field" }, h("span", {}, t("moderation.seat")), h("input", { name: "seat", id: "ban-guest-seat", type: "number", min: 1, max: 6, required: true })),
        why(), days(),
        h("button", { type: "submit", class: "danger", disabled: this.busy }, t("moderation.banGuest"))),
      h("form", { class: "account-form", id: "ban-address-form", onsubmit: (e) => this.submit(e, "/api/moderation/bans", (f) => ({
        kind: "address", address: f.address.value.trim(), reason: f.reason.value, days: daysOf(f) })) },
        h("h3", {}, t("moderation.banAddress")),
        h("label", { class: "field" }, h("span", {}, t("moderation.address")), h("input", { name: "address", id: "ban-address", required: true, maxlength: 64 })),
        why(), days(),
        h("button", { type: "submit", class: "danger", disabled: this.busy }, t("moderation.banAddress"))));
  }

  submit(event, path, fields) {
    event.preventDefault();
    const form = event.target;
    const body = fields(form);
    return this.run(() => accountApi("POST", path, body));
  }

  reportItem(report) {
    return h("li", { class: "report", "data-report": report.id },
      h("p", {}, h("strong", {}, h("button", { type: "button", class: "link", onclick: () => this.open(report.reported) }, report.reported)),
        " · ", t(`moderation.reason.${report.reason}`), " · ", t("moderation.reporter", { name: report.reporter }),
        " · ", h("span", { class: "muted" }, when(report.created)), report.table && " · ", report.table && gameLink(report.table)),
      report.note && h("blockquote", {}, report.note),
      h("form", { class: "row", onsubmit: (e) => this.submit(e, `/api/moderation/reports/${report.id}/close`, (f) => ({ reason: f.reason.value })) },
        h("label", { class: "field inline" }, h("span", {}, t("moderation.why")),
          h("input", { name: "reason", required: true, maxlength: 500 })),
        h("button", { type: "submit", disabled: this.busy }, t("moderation.close"))));
  }

  historySection(p) {
    const list = (items, render, empty) => (items.length ? h("ul", {}, items.map(render)) : h("p", { class: "muted" }, empty));
    const sanctions = Object.entries(p.sanctions);
    const path = `/api/moderation/players/${encodeURIComponent(p.username)}`;
    return h("section", { class: "panel", id: "player-history", "aria-labelledby": "history-title" },
      h("h2", { id: "history-title" }, t("moderation.history", { name: p.username })),
      h("h3", {}, t("moderation.sanctions")),
      list(sanctions, ([kind, s]) => h("li", { "data-kind": kind }, t(`moderation.action.${kind}`), ": ", s.reason), t("moderation.none")),
      h("h3", {}, t("moderation.signals")),
      list(p.signals, (s) => h("li", { "data-kind": s.kind },
        h("strong", {}, SIGNALS.includes(s.kind) ? t(`moderation.signal.${s.kind}`) : s.kind), ": ", s.evidence, " ",
        s.tables.slice(0, 5).map((table) => [gameLink(table), " "])), t("moderation.noSignals")),
      h("h3", {}, t("moderation.reportsAbout")),
      list(p.reports, (r) => h("li", {}, t(`moderation.reason.${r.reason}`), " · ", t("moderation.reporter", { name: r.reporter }),
        r.note ? ` · “${r.note}”` : "", r.table ? [" · ", gameLink(r.table)] : ""), t("moderation.none")),
      h("h3", {}, t("moderation.games")),
      h("p", { class: "muted" }, t("moderation.gamesHelp")),
      p.games.length ? h("ul", { id: "history-games" }, p.games.map((g) => this.gameLine(g))) : h("p", { class: "muted" }, t("moderation.none")),
      p.next && h("button", { type: "button", id: "history-more", disabled: this.busy, onclick: () => this.more() }, t("moderation.more")),
      h("h3", {}, t("moderation.log")),
      list(p.log, (entry) => this.logLine(entry), t("moderation.none")),
      h("form", { class: "account-form", id: "action-form", onsubmit: (e) => this.submit(e, `${path}/actions`, (f) => ({
        action: f.action.value, reason: f.reason.value, days: f.days.value ? Number(f.days.value) : null, refund: f.refund.checked })) },
        h("h3", {}, t("moderation.action")),
        h("label", { class: "field" }, h("span", {}, t("moderation.action")),
          h("select", { name: "action", id: "action-kind" }, ACTIONS.map((a) => h("option", { value: a }, t(`moderation.action.${a}`))))),
        h("label", { class: "field" }, h("span", {}, t("moderation.why")),
          h("input", { name: "reason", id: "action-reason", required: true, maxlength: 500 })),
        h("label", { class: "field" }, h("span", {}, t("moderation.days")),
          h("input", { name: "days", id: "action-days", type: "number", min: 1, max: 3650, step: "any" })),
        h("label", { class: "check" }, h("input", { name: "refund", id: "action-refund", type: "checkbox" }), h("span", {}, t("moderation.refundBox"))),
        h("button", { type: "submit", id: "action-submit", class: "danger", disabled: this.busy }, t("moderation.apply"))),
      h("form", { class: "account-form", id: "rename-form", onsubmit: (e) => this.submit(e, `${path}/rename`, (f) => ({ username: f.username.value.trim(), reason: f.reason.value })) },
        h("h3", {}, t("moderation.rename")),
        h("label", { class: "field" }, h("span", {}, t("moderation.newName")), h("input", { name: "username", required: true, maxlength: 40 })),
        h("label", { class: "field" }, h("span", {}, t("moderation.why")), h("input", { name: "reason", required: true, maxlength: 500 })),
        h("button", { type: "submit", disabled: this.busy }, t("moderation.rename"))));
  }

  logLine(entry) {
    return h("li", { class: "log-entry" }, h("span", { class: "muted" }, when(entry.at)), " ",
      t("moderation.logEntry", { by: entry.by, action: entry.action, reason: entry.reason,
        name: entry.username || (entry.data && (entry.data.address || entry.data.name)) || "" }));
  }

  render() {
    if (this.refused) {
      this.root.replaceChildren(h("div", { class: "panel center" }, h("h1", {}, t("moderation.title")),
        h("p", { class: "error", role: "alert", id: "moderation-refused" }, t("moderation.notModerator"))));
      return;
    }
    this.root.replaceChildren(h("div", { class: "moderation" },
      h("h1", {}, t("moderation.title")),
      this.error && h("p", { class: "error", role: "alert", id: "moderation-error" }, this.error),
      this.notice && h("p", { class: "notice", role: "status", id: "moderation-notice" }, this.notice),
      h("section", { class: "panel", id: "reports-queue", "aria-labelledby": "queue-title" },
        h("h2", { id: "queue-title" }, t("moderation.queue")),
        this.reports.length ? h("ul", { class: "report-list" }, this.reports.map((r) => this.reportItem(r)))
          : h("p", { class: "muted" }, t("moderation.noReports"))),
      h("form", { class: "panel row", id: "player-lookup", onsubmit: (e) => { e.preventDefault(); this.open(e.target.username.value.trim()); } },
        h("label", { class: "field inline" }, h("span", {}, t("moderation.player")),
          h("input", { name: "username", id: "lookup-username", required: true, maxlength: 40 })),
        h("button", { type: "submit", disabled: this.busy }, t("moderation.open"))),
      this.player && this.historySection(this.player),
      this.bansSection(),
      h("form", { class: "panel account-form", id: "close-table-form", onsubmit: (e) => this.submit(e, `/api/moderation/tables/${encodeURIComponent(e.target.table.value.trim())}/close`, (f) => ({ reason: f.reason.value })) },
        h("h2", {}, t("moderation.closeTable")),
        h("label", { class: "field" }, h("span", {}, t("moderation.tableId")), h("input", { name: "table", required: true, maxlength: 40 })),
        h("label", { class: "field" }, h("span", {}, t("moderation.why")), h("input", { name: "reason", required: true, maxlength: 500 })),
        h("button", { type: "submit", disabled: this.busy }, t("moderation.close"))),
      h("section", { class: "panel", id: "moderation-log", "aria-labelledby": "log-title" },
        h("h2", { id: "log-title" }, t("moderation.log")),
        this.log.length ? h("ul", {}, this.log.slice(0, 100).map((entry) => this.logLine(entry))) : h("p", { class: "muted" }, t("moderation.none")))));
  }
}
