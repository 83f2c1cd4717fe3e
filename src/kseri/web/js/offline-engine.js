// The offline engine: the project's own Python engine and bots (kseri.offline), run in the page by
// Pyodide (from the npm registry, served under /offline/pyodide/, gzip-compressed). Its 12 MB are
// fetched only when wanted: keepEngine() puts them in the engine's cache (which the service worker
// serves them from, offline too), reporting its progress, when the player asks to keep the game
// for offline play, installs the app or starts an offline game. loadEngine() starts it once per
// page; every answer of kseri.offline is JSON text. offlineInfo() is what the offline lobby needs
// before the engine (server/api/offline.py).

const PYODIDE = "/offline/pyodide/";
const CORE = "/offline/kseri-core.zip";
const INFO = "/offline/offline.json";
const CORE_DIR = "/home/pyodide/kseri-core";

let info = null;
let engine = null;
let keeping = null;
const watchers = new Set();

/** {presets, levels, engine: {cache, files: [{url, bytes}]}}, kept by the service worker. */
export function offlineInfo() {
  info ??= fetch(INFO).then((response) => {
    if (!response.ok) throw new Error(`${INFO}: ${response.status}`);
    return response.json();
  });
  info.catch(() => { info = null; });
  return info;
}

/** Whether every file of the engine is kept on this device (false where the page has no caches). */
export async function engineKept() {
  if (!("caches" in self)) return false;
  const { engine: wanted } = await offlineInfo();
  const cache = await caches.open(wanted.cache);
  const kept = await Promise.all(wanted.files.map((file) => cache.match(file.url)));
  return kept.every(Boolean);
}

/** Follow the engine's download: `watch({done, total})` with bytes, uncompressed; returns the
 *  way to stop following. */
export function watchKeeping(watch) {
  watchers.add(watch);
  return () => watchers.delete(watch);
}

async function download(cache, file, progress) {
  const response = await fetch(file.url, { cache: "no-store" });
  if (!response.ok || !response.body) throw new Error(`${file.url}: ${response.status}`);
  const reader = response.body.getReader();
  const chunks = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    progress(value.byteLength);
  }
  const type = response.headers.get("Content-Type") || "application/octet-stream";
  await cache.put(file.url, new Response(new Blob(chunks, { type }), { headers: { "Content-Type": type } }));
}

/** Keep the engine on this device (once; what is kept already is not fetched again). */
export function keepEngine() {
  keeping ??= (async () => {
    if (!("caches" in self)) return;
    const { engine: wanted } = await offlineInfo();
    const cache = await caches.open(wanted.cache);
    const kept = await Promise.all(wanted.files.map((file) => cache.match(file.url)));
    const total = wanted.files.reduce((sum, file) => sum + file.bytes, 0);
    let done = wanted.files.reduce((sum, file, index) => sum + (kept[index] ? file.bytes : 0), 0);
    const tell = () => { for (const watch of watchers) watch({ done, total }); };
    tell();
    await Promise.all(wanted.files.map((file, index) => !kept[index] && download(cache, file, (bytes) => {
      done += bytes;
      tell();
    })));
  })();
  keeping.catch(() => { keeping = null; }); // a failed download may be tried again
  return keeping;
}

/** Pyodide with kseri.offline imported (kept first; one start per page, later calls share it). */
export function loadEngine() {
  engine ??= (async () => {
    await keepEngine();
    const { loadPyodide } = await import(`${PYODIDE}pyodide.mjs`);
    const [pyodide, core] = await Promise.all([
      loadPyodide({ indexURL: PYODIDE }),
      fetch(CORE).then((response) => {
        if (!response.ok) throw new Error(`${CORE}: ${response.status}`);
        return response.arrayBuffer();
      }),
    ]);
    pyodide.unpackArchive(core, "zip", { extractDir: CORE_DIR });
    pyodide.runPython(`import sys\nsys.path.insert(0, ${JSON.stringify(CORE_DIR)})\nimport kseri.offline`);
    return pyodide;
  })();
  engine.catch(() => { engine = null; }); // a failed start may be tried again
  return engine;
}

/** The kseri.offline module of a started engine. */
export async function offlineModule() {
  const pyodide = await loadEngine();
  return pyodide.pyimport("kseri.offline");
}
