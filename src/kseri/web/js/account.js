// Accounts in the page (docs/players.md): who is signed in, the top bar's links, and the
// account screen (/account): sign in, sign up (bringing the seats this browser holds), sign
// out, change the password, download one's data, delete the account; the players one blocks
// (undone here) and what moderation says about the account (moderation.js).
import { api, heldSeatTokens } from "./api.js";
import { h, navigate } from "./dom.js";
import { t, translated } from "./i18n.js";
import { blocksPanel, loadModeration, standingNotice } from "./moderation.js";

let account = null; // {id, username, csrf} once signed in
const claimed = new Set(); // tables whose held seat was given to the account this visit

/** Ask the server who is signed in (the session cookie), then redraw the top bar. */
export async function loadAccount() {
  try {
    account = await api("GET", "/api/account");
  } catch {
    account = null;
  }
  renderAccountNav();
  return account;
}

/** Make the seats this browser holds the signed-in account's (new ones since the last call). */
export async function claimHeldSeats() {
  const seats = heldSeatTokens().filter((held) => !claimed.has(held.table)).slice(0, 200);
  if (!account || !seats.length) return;
  try {
    await accountApi("POST", "/api/account/seats", { seats });
    for (const held of seats) claimed.add(held.table);
  } catch {
    // tried again on the next page
  }
}

/** An account error in the page's language: by its code (and reason, with its figures), else
 *  the server's own words. */
export function accountErrorText(error) {
  const details = error.details || {};
  const key = details.reason ? `accountError.${error.code}.${details.reason}` : `accountError.${error.code}`;
  return translated(key, error.message, details);
}

/** The signed-in account, or null. */
export function currentAccount() {
  return account;
}

/** A state-changing call made with the session: it carries the session's CSRF token. */
export function accountApi(method, path, body = undefined) {
  return api(method, path, body, undefined, account ? { "X-CSRF-Token": account.csrf } : {});
}

function link(href, text, id) {
  return h("a", { href, id, onclick: (e) => { e.preventDefault(); navigate(href); } }, text);
}

/** The top bar: the leaderboard, and the player's profile or a sign-in link. */
export function renderAccountNav() {
  const nav = document.getElementById("account-nav");
  if (!nav) return;
  const leaderboard = link("/leaderboard/greek", t("account.leaderboard"), "nav-leaderboard");
  nav.replaceChildren(...(account
    ? [leaderboard, link(`/p/${encodeURIComponent(account.username)}`, account.username, "nav-profile"),
      link("/account", t("account.settings"), "nav-account")]
    : [leaderboard, link("/account", t("account.signIn"), "nav-sign-in")]));
}

export class AccountScreen {
  constructor(root) {
    this.root = root;
    this.error = "";
    this.errorAt = null; // the form whose submission failed: its error is shown in it
    this.typed = {}; // what was typed in each form's username, kept across redraws
    this.notice = "";
    this.busy = false;
    this.moderation = null; // {blocks, guests, standing} once signed in
  }

  async start() {
    await loadAccount();
    await this.loadModeration();
    this.render();
  }

  async loadModeration() {
    try {
      this.moderation = account ? await loadModeration() : null;
    } catch {
      this.moderation = null;
    }
  }

  unblock(name) {
    return this.run(async () => {
      await accountApi("DELETE", `/api/blocks/${encodeURIComponent(name)}`);
      await this.loadModeration();
    });
  }

  unblockGuest(id) {
    return this.run(async () => {
      await accountApi("DELETE", `/api/blocks/guests/${id}`);
      await this.loadModeration();
    });
  }

  destroy() {}

  refresh() {
    this.render();
  }

  async run(action, at = null) {
    if (this.busy) return;
    this.busy = true;
    this.error = "";
    this.errorAt = at;
    this.notice = "";
    this.render();
    try {
      await action();
    } catch (error) {
      this.error = accountErrorText(error);
    }
    this.busy = false;
    renderAccountNav();
    this.render();
  }

  enter(how, event) {
    event.preventDefault();
    const form = event.target;
    const body = { username: form.username.value.trim(), password: form.password.value, seats: heldSeatTokens().slice(0, 200) };
    this.typed[how] = form.username.value;
    return this.run(async () => {
      account = await api("POST", `/api/account/${how}`, body);
      navigate(`/p/${encodeURIComponent(account.username)}`);
    }, how);
  }

  render() {
    const errorLine = this.error && h("p", { class: "error", role: "alert", id: "account-error" }, this.error);
    const focus = this.error && this.errorAt ? `${this.errorAt}-password` : null;
    const noticeLine = this.notice && h("p", { class: "notice", role: "status", id: "account-notice" }, this.notice);
    if (!account) {
      const form = (how, title, help, autocomplete) => h("form", { class: "panel account-form", id: `${how}-form`, onsubmit: (e) => this.enter(how, e) },
        h("h2", {}, title),
        help && h("p", { class: "muted" }, help),
        h("label", { class: "field" }, h("span", {}, t("account.username")),
          h("input", { name: "username", id: `${how}-username`, required: true, maxlength: 40, autocomplete: "username",
            value: this.typed[how] || null, oninput: (e) => { this.typed[how] = e.target.value; } })),
        h("label", { class: "field" }, h("span", {}, t("account.password")),
          h("input", { name: "password", id: `${how}-password`, type: "password", required: true, maxlength: 128, autocomplete,
            "aria-invalid": this.error && this.errorAt === how ? "true" : null, "aria-describedby": this.error && this.errorAt === how ? "account-error" : null })),
        this.errorAt === how && errorLine,
        h("button", { type: "submit", class: "primary", id: `${how}-submit`, disabled: this.busy }, title));
      this.root.replaceChildren(h("div", { class: "account" },
        h("h1", {}, t("account.title")),
        !["signin", "signup"].includes(this.errorAt) && errorLine,
        h("div", { class: "account-forms" },
          form("signin", t("account.signIn"), null, "current-password"),
          form("signup", t("account.signUp"), t("account.signUpHelp"), "new-password"))));
      if (focus && !this.busy) document.getElementById(focus).focus();
      return;
    }
    const moderation = this.moderation;
    this.root.replaceChildren(h("div", { class: "account" },
      h("h1", {}, t("account.signedInAs", { name: account.username })),
      errorLine, noticeLine,
      moderation && standingNotice(moderation.standing),
      h("p", { class: "row" },
        link(`/p/${encodeURIComponent(account.username)}`, t("account.profile"), "account-profile"),
        moderation && moderation.standing.moderator && link("/moderation", t("moderation.title"), "account-moderation"),
        h("a", { class: "button", href: "/api/account/data", download: "kseri-account.json", id: "account-data" }, t("account.download")),
        h("button", { type: "button", id: "sign-out", disabled: this.busy, onclick: () => this.run(async () => {
          await accountApi("POST", "/api/account/signout");
          account = null;
        }) }, t("account.signOut"))),
      h("form", { class: "panel account-form", id: "password-form", onsubmit: (e) => {
        e.preventDefault();
        const form = e.target;
        this.run(async () => {
          await accountApi("POST", "/api/account/password", { current: form.current.value, new: form.new.value });
          this.notice = t("account.passwordChanged");
        });
      } },
        h("h2", {}, t("account.changePassword")),
        h("label", { class: "field" }, h("span", {}, t("account.currentPassword")),
          h("input", { name: "current", type: "password", required: true, autocomplete: "current-password" })),
        h("label", { class: "field" }, h("span", {}, t("account.newPassword")),
          h("input", { name: "new", type: "password", required: true, autocomplete: "new-password" })),
        h("button", { type: "submit", disabled: this.busy }, t("account.changePassword"))),
      moderation && blocksPanel(moderation.blocks, (name) => this.unblock(name), this.busy, moderation.guests,
        (id) => this.unblockGuest(id)),
      h("form", { class: "panel account-form danger", id: "delete-form", onsubmit: (e) => {
        e.preventDefault();
        const form = e.target;
        if (!window.confirm(t("account.deleteConfirm"))) return;
        this.run(async () => {
          await accountApi("POST", "/api/account/delete", { password: form.password.value });
          account = null;
          this.notice = t("account.deleted");
        });
      } },
        h("h2", {}, t("account.delete")),
        h("p", { class: "muted" }, t("account.deleteHelp")),
        h("label", { class: "field" }, h("span", {}, t("account.password")),
          h("input", { name: "password", type: "password", required: true, autocomplete: "current-password" })),
        h("button", { type: "submit", class: "danger", disabled: this.busy }, t("account.delete")))));
  }
}
