// Translations: every text on the page comes from i18n/<lang>.json (flat "area.name" keys).
// The language is the one chosen on the page, else the browser's first supported one.
// Adding a language is one JSON file and one line in i18n/languages.json.

let languages = { en: "English" };
let messages = {};
let fallback = {};
let current = "en";
const STORAGE_KEY = "kseri.lang";

async function fetchJson(path) {
  const response = await fetch(path);
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
  return response.json();
}

function browserChoice() {
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const base = tag.toLowerCase().split("-")[0];
    if (base in languages) return base;
  }
  return "en";
}

/** Load the language list and the chosen language (or the saved/browser one). */
export async function loadI18n(choice) {
  languages = await fetchJson("/static/i18n/languages.json");
  const saved = localStorage.getItem(STORAGE_KEY);
  current = choice in languages ? choice : saved in languages ? saved : browserChoice();
  fallback = await fetchJson("/static/i18n/en.json");
  messages = current === "en" ? fallback : await fetchJson(`/static/i18n/${current}.json`);
  document.documentElement.lang = current;
}

/** Switch language and remember the choice. */
export async function setLanguage(lang) {
  localStorage.setItem(STORAGE_KEY, lang);
  await loadI18n(lang);
}

export function currentLanguage() {
  return current;
}

export function availableLanguages() {
  return languages;
}

/** The text for key with {name} placeholders filled from params. */
export function t(key, params = {}) {
  const text = messages[key] ?? fallback[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

/** The translation of key (with its params), or otherwise when the page has none (a name or a
 * message only the server knows). */
export function translated(key, otherwise, params = {}) {
  const text = t(key, params);
  return text === key ? otherwise : text;
}

const plurals = new Map();

/** Like t, choosing key.one / key.other (etc.) by the count n (also passed as {n}). */
export function tn(key, n, params = {}) {
  if (!plurals.has(current)) plurals.set(current, new Intl.PluralRules(current));
  const form = plurals.get(current).select(n);
  const chosen = `${key}.${form}` in messages || `${key}.${form}` in fallback ? `${key}.${form}` : `${key}.other`;
  return t(chosen, { n, ...params });
}

/** Fill the static texts: data-i18n (text), data-i18n-label (aria-label), data-i18n-placeholder, data-i18n-title. */
export function applyI18n(root = document) {
  for (const node of root.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of root.querySelectorAll("[data-i18n-label]")) node.setAttribute("aria-label", t(node.dataset.i18nLabel));
  for (const node of root.querySelectorAll("[data-i18n-placeholder]")) node.placeholder = t(node.dataset.i18nPlaceholder);
  for (const node of root.querySelectorAll("[data-i18n-title]")) node.title = t(node.dataset.i18nTitle);
  document.title = t("app.title");
}
