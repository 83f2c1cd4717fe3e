// What makes the table feel alive: sounds synthesised with WebAudio (no sound files), card
// flights and sweeps, and the celebrations of a kseri and of the match's winner.
// No sound plays before the person has touched the page, nor when it is muted (remembered in
// localStorage "kseri.muted"). With prefers-reduced-motion every movement becomes a fade: the
// same things are shown, nothing moves. Each effect is logged in window.kseriEffects (the tests
// read it: what was asked for, and whether it was heard / how it was shown).
import { h, reducedMotion } from "./dom.js";

const MUTE_KEY = "kseri.muted";
const log = { sounds: [], motions: [] };
window.kseriEffects = log;

let audio = null;
let touched = false;
for (const kind of ["pointerdown", "keydown", "touchstart"]) {
  window.addEventListener(kind, () => { touched = true; }, { capture: true, passive: true });
}

/** Whether sounds are on (the page's mute toggle; on unless muted before). */
export function soundOn() {
  return localStorage.getItem(MUTE_KEY) !== "1";
}

export function setSoundOn(on) {
  localStorage.setItem(MUTE_KEY, on ? "0" : "1");
}

// Each sound: notes [frequency Hz, start s, length s, wave, volume].
const SOUNDS = {
  play: [[330, 0, 0.07, "triangle", 0.25]],
  capture: [[392, 0, 0.08, "triangle", 0.25], [523, 0.07, 0.12, "triangle", 0.25]],
  sweep: [[262, 0, 0.1, "sine", 0.2], [330, 0.08, 0.1, "sine", 0.2], [392, 0.16, 0.16, "sine", 0.2]],
  kseri: [[523, 0, 0.1, "square", 0.12], [659, 0.1, 0.1, "square", 0.12], [784, 0.2, 0.1, "square", 0.12], [1047, 0.3, 0.3, "square", 0.12]],
  jackKseri: [[392, 0, 0.1, "square", 0.12], [523, 0.1, 0.1, "square", 0.12], [659, 0.2, 0.1, "square", 0.12],
    [784, 0.3, 0.1, "square", 0.12], [1047, 0.4, 0.12, "square", 0.12], [1319, 0.52, 0.4, "square", 0.12]],
  turn: [[880, 0, 0.09, "sine", 0.18], [1175, 0.1, 0.14, "sine", 0.18]],
  notice: [[659, 0, 0.1, "sine", 0.18], [880, 0.12, 0.1, "sine", 0.18], [659, 0.24, 0.14, "sine", 0.18]],
  win: [[523, 0, 0.15, "triangle", 0.3], [659, 0.15, 0.15, "triangle", 0.3], [784, 0.3, 0.15, "triangle", 0.3], [1047, 0.45, 0.6, "triangle", 0.3]],
  matchEnd: [[440, 0, 0.2, "triangle", 0.25], [392, 0.2, 0.2, "triangle", 0.25], [330, 0.4, 0.5, "triangle", 0.25]],
};

/** Play one of the sounds above, if the person has interacted with the page and not muted it. */
export function sound(name) {
  const status = !touched ? "before-interaction" : !soundOn() ? "muted" : "played";
  log.sounds.push({ name, status });
  if (status !== "played") return;
  try {
    audio = audio || new AudioContext();
    if (audio.state === "suspended") audio.resume();
    const start = audio.currentTime + 0.01;
    for (const [frequency, at, length, wave, volume] of SOUNDS[name]) {
      const oscillator = audio.createOscillator();
      const gain = audio.createGain();
      oscillator.type = wave;
      oscillator.frequency.value = frequency;
      gain.gain.setValueAtTime(0.0001, start + at);
      gain.gain.exponentialRampToValueAtTime(volume, start + at + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, start + at + length);
      oscillator.connect(gain).connect(audio.destination);
      oscillator.start(start + at);
      oscillator.stop(start + at + length + 0.02);
    }
  } catch {
    // No audio device: the page goes on silently.
  }
}

function note(name) {
  const style = reducedMotion() ? "fade" : "motion";
  log.motions.push({ name, style });
  return style;
}

/** A card moving from a rectangle (a hand) onto the element `to` (the pile); a fade in place
 * with reduced motion. Resolves when done. */
export async function fly(cardNode, from, to, ms = 300) {
  if (!to) return;
  const style = note("fly");
  if (style === "fade" || !from) {
    to.animate([{ opacity: 0 }, { opacity: 1 }], { duration: 200 });
    return;
  }
  const box = to.getBoundingClientRect();
  const ghost = h("div", { class: "flying-card", "aria-hidden": "true" }, cardNode);
  Object.assign(ghost.style, { left: `${box.left}px`, top: `${box.top}px`, width: `${box.width}px`, height: `${box.height}px` });
  document.body.append(ghost);
  to.style.visibility = "hidden";
  const dx = from.left + from.width / 2 - (box.left + box.width / 2);
  const dy = from.top + from.height / 2 - (box.top + box.height / 2);
  const flight = ghost.animate(
    [{ transform: `translate(${dx}px, ${dy}px) scale(0.8) rotate(-8deg)` }, { transform: "none" }],
    { duration: ms, easing: "cubic-bezier(.2,.7,.3,1)" },
  );
  await flight.finished.catch(() => {});
  ghost.remove();
  to.style.visibility = "";
}

/** The centre pile (element `pile`) swept to a side's captured pile (element `target`). */
export async function sweep(pile, target, ms = 420) {
  if (!pile || !target) return;
  const style = note("sweep");
  if (style === "fade") {
    await pile.animate([{ opacity: 1 }, { opacity: 0 }], { duration: 250, fill: "forwards" }).finished.catch(() => {});
    target.animate([{ opacity: 0.3 }, { opacity: 1 }], { duration: 400 });
    return;
  }
  const from = pile.getBoundingClientRect();
  const to = target.getBoundingClientRect();
  const ghost = pile.cloneNode(true);
  ghost.removeAttribute("id");
  ghost.setAttribute("aria-hidden", "true");
  ghost.classList.add("sweeping");
  Object.assign(ghost.style, { position: "fixed", left: `${from.left}px`, top: `${from.top}px`, width: `${from.width}px`, height: `${from.height}px`, margin: 0, zIndex: 40 });
  document.body.append(ghost);
  pile.style.visibility = "hidden";
  const dx = to.left + to.width / 2 - (from.left + from.width / 2);
  const dy = to.top + to.height / 2 - (from.top + from.height / 2);
  await ghost.animate(
    [{ transform: "none", opacity: 1 }, { transform: `translate(${dx}px, ${dy}px) scale(0.25) rotate(25deg)`, opacity: 0.4 }],
    { duration: ms, easing: "cubic-bezier(.5,0,.7,.4)" },
  ).finished.catch(() => {});
  ghost.remove();
  pile.style.visibility = "";
  target.animate([{ transform: "scale(1.5)" }, { transform: "none" }], { duration: 300 });
}

/** A celebration over the table: a big line of text (a kseri, a jack kseri, the winner) with
 * suits bursting out, or with reduced motion the same text fading in and out. Only a win bursts
 * at the match's end (the loser's line is quiet). `avoid`, a node on the table (the centre
 * pile at a capture), is kept in sight: the text moves above it, or below where there is no room. */
export function celebrate(kind, text, ms = 1700, avoid = null) {
  const style = note(`celebrate-${kind}`);
  const count = kind === "match-end" ? 0 : kind === "jack-kseri" || kind === "win" ? 18 : 12;
  const sparks = style === "motion"
    ? Array.from({ length: count }, (_, i) => h("span", {
      class: `spark suit-${"SHDC"[i % 4]}`, style: `--a:${(360 / count) * i}deg;--d:${80 + (i % 3) * 40}px`,
    }, "♠♥♦♣"[i % 4]))
    : [];
  const textNode = h("div", { class: "celebration-text" }, text);
  const node = h("div", { class: `celebration ${kind} ${style}`, "aria-hidden": "true", "data-kind": kind }, textNode, sparks);
  document.body.append(node);
  if (avoid) keepClear(node, textNode, avoid.getBoundingClientRect());
  setTimeout(() => node.remove(), ms);
  return node;
}

/** Move a celebration's text off a rectangle: above it where it fits, else below it. */
function keepClear(node, textNode, rect) {
  // The layout box, not the drawn one: the text may be starting its pop, scaled down.
  const box = { top: textNode.offsetTop, height: textNode.offsetHeight, bottom: textNode.offsetTop + textNode.offsetHeight };
  if (box.bottom <= rect.top || box.top >= rect.bottom || rect.width === 0) return;
  const gap = 8 + box.height * 0.1; // room for the pop's overshoot
  const above = rect.top - gap - box.height;
  const top = above >= 0 ? above : Math.min(rect.bottom + gap, window.innerHeight - box.height);
  Object.assign(node.style, { alignItems: "flex-start", paddingTop: `${Math.max(0, top)}px` });
  for (const spark of node.querySelectorAll(".spark")) spark.style.top = `${Math.max(0, top) + box.height / 2}px`;
}
