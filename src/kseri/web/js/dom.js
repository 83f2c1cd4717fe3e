// A tiny element builder and the page's spoken announcements.

/**
 * h("button", {class: "x", onclick: fn, "aria-label": "..."}, "text", child, ...)
 * Attributes starting with "on" become listeners; null/false attributes and children are skipped.
 */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (value === true) node.setAttribute(key, "");
    else node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

/** Say something to screen-reader users (the polite aria-live region). */
export function announce(text) {
  const region = document.getElementById("announcer");
  if (!region) return;
  const line = document.createElement("p");
  line.textContent = text;
  region.append(line);
  while (region.childElementCount > 5) region.firstElementChild.remove();
}

/** Whether the user asked for less motion. */
export function reducedMotion() {
  return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/** Go to another page of the app without reloading (app.js routes on popstate). */
export function navigate(path) {
  history.pushState(null, "", path);
  window.dispatchEvent(new PopStateEvent("popstate"));
}
