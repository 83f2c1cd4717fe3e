// The page: loads translations and the deck, then shows the lobby (/), a table (/t/ID), a
// finished table's replay (/t/ID#replay; with the master's analysis at once: #analysis), the puzzles (/puzzles), the memory trainer (/trainer), the daily deal (/daily), duplicate challenges (/challenges) the tutorial (/#learn) or, at /offline and whenever the server is out of reach, the computer on this device (offline.js). Language and suit colours are switchable in the top bar.
import { applyI18n, availableLanguages, currentLanguage, loadI18n, setLanguage } from "./i18n.js";
import { loadDeck } from "./cards.js";
import { ChallengeScreen, ChallengesScreen, loadInvitations } from "./challenges.js";
import { DailyScreen, DailyVersusScreen } from "./daily.js";
import { LearnScreen } from "./learn.js";
import { LobbyScreen } from "./lobby.js";
import { TableScreen } from "./table.js";
import { ReplayScreen } from "./replay.js";
import { AccountScreen, claimHeldSeats, loadAccount, renderAccountNav } from "./account.js";
import { LeaderboardScreen, ProfileScreen } from "./players.js";
import { PuzzleScreen } from "./puzzles.js";
import { TrainerScreen } from "./trainer.js";
import { ModerationScreen } from "./moderation.js";
import { OfflineScreen, registerServiceWorker, serverAnswers } from "./offline.js";
import { PassPlayOfflineScreen } from "./passplay-offline.js";
import { watchChallenges } from "./notices.js";
import { TournamentScreen, TournamentsScreen } from "./tournaments.js";

let screen = null;
let online = true; // whether the server answered when the page loaded
let routed = ""; // the address the screen was made for

function route() {
  routed = location.href;
  if (screen) {
    screen.destroy();
    // What the screen left still draws (a fetch answered late, a play's flight ending) lands in
    // a root of its own, off the page, not over the next screen.
    screen.root = document.createElement("div");
  }
  const root = document.getElementById("app");
  root.replaceChildren();
  for (const node of document.querySelectorAll(".celebration")) node.remove(); // not over the next page
  const match = location.pathname.match(/^\/t\/([^/]+)\/?$/);
  const profile = location.pathname.match(/^\/p\/([^/]+)\/?$/);
  const board = location.pathname.match(/^\/leaderboard(?:\/([^/]+))?\/?$/);
  const daily = location.pathname.match(/^\/daily(?:\/([a-z]+)(?:\/(\d{4}-\d\d-\d\d))?)?\/?$/);
  const versus = location.pathname.match(/^\/daily\/versus\/(\w+)\/(\w+)\/?$/);
  const challenge = location.pathname.match(/^\/challenges\/(\w+)\/?$/);
  const tournament = location.pathname.match(/^\/tournaments(?:\/([\w-]+))?\/?$/);
  if (location.pathname === "/account") screen = new AccountScreen(root);
  else if (location.pathname === "/puzzles") screen = new PuzzleScreen(root);
  else if (location.pathname === "/trainer") screen = new TrainerScreen(root);
  else if (/^\/challenges\/?$/.test(location.pathname)) screen = new ChallengesScreen(root);
  else if (challenge) screen = new ChallengeScreen(root, challenge[1]);
  else if (location.pathname === "/moderation") screen = new ModerationScreen(root);
  else if (tournament && tournament[1]) screen = new TournamentScreen(root, tournament[1]);
  else if (tournament) screen = new TournamentsScreen(root);
  else if (versus) screen = new DailyVersusScreen(root, versus[1], versus[2]);
  else if (daily) screen = new DailyScreen(root, daily[1] || null, daily[2] || null);
  else if (profile) screen = new ProfileScreen(root, decodeURIComponent(profile[1]));
  else if (board) screen = new LeaderboardScreen(root, board[1] ? decodeURIComponent(board[1]) : null);
  else if (match && ["#replay", "#analysis"].includes(location.hash)) {
    screen = new ReplayScreen(root, decodeURIComponent(match[1]), location.hash === "#analysis");
  }
  else if (match) screen = new TableScreen(root, decodeURIComponent(match[1]));
  else if (location.hash === "#replay") screen = new ReplayScreen(root, null);
  else if (location.hash.startsWith("#learn")) screen = new LearnScreen(root, location.hash.split("/")[1] || null);
  else if ((location.pathname === "/offline" || !online) && location.hash === "#device") screen = new PassPlayOfflineScreen(root);
  else if (location.pathname === "/offline" || !online) screen = new OfflineScreen(root);
  else screen = new LobbyScreen(root);
  screen.start();
  claimHeldSeats();
}

function setupPreferences() {
  const select = document.getElementById("language-select");
  select.replaceChildren();
  for (const [code, name] of Object.entries(availableLanguages())) {
    const option = new Option(name, code, false, code === currentLanguage());
    option.lang = code;
    select.append(option);
  }
  select.onchange = async () => {
    await setLanguage(select.value);
    applyI18n();
    renderAccountNav();
    if (screen) screen.refresh();
  };
  const fourColour = document.getElementById("four-colour");
  fourColour.checked = localStorage.getItem("kseri.fourColour") === "1";
  const apply = () => document.body.classList.toggle("four-colour", fourColour.checked);
  fourColour.onchange = () => {
    localStorage.setItem("kseri.fourColour", fourColour.checked ? "1" : "0");
    apply();
  };
  apply();
}

async function main() {
  [online] = await Promise.all([serverAnswers(), loadI18n(), loadDeck()]);
  registerServiceWorker(); // once the language is known: the worker keeps its lessons
  applyI18n();
  setupPreferences();
  await loadAccount();
  watchChallenges(loadInvitations);
  window.addEventListener("popstate", route);
  // A link to a fragment fires popstate, then hashchange: one screen for it, not two whose
  // loads race to draw the page.
  window.addEventListener("hashchange", () => { if (location.href !== routed) route(); });
  route();
}

main();
