// The service worker (served at /sw.js by server/api/offline.py, which fills in the lists and
// their versions): it keeps the app shell with the engine's core, and Pyodide, so that the page
// opens and plays the computer offline. Online, everything comes from the network as before (the
// kept copy is refreshed); offline, from what was kept. The API and the play WebSocket are never
// kept. Pyodide has its own cache and version: a new release of the page does not fetch it again.
const SHELL = ["__SHELL__"];
const ENGINE = ["__ENGINE__"];
const CACHE = "kseri-shell-__SHELL_VERSION__";
const ENGINE_CACHE = "kseri-engine-__ENGINE_VERSION__";
const PRECACHE = [...SHELL, ...ENGINE];

/** Keep what the engine's cache does not hold yet (all of it only for a new Pyodide). */
async function keepEngine() {
  const cache = await caches.open(ENGINE_CACHE);
  const kept = await Promise.all(ENGINE.map((url) => cache.match(url)));
  await cache.addAll(ENGINE.filter((url, index) => !kept[index]));
}

self.addEventListener("install", (event) => {
  event.waitUntil(Promise.all([caches.open(CACHE).then((cache) => cache.addAll(SHELL)), keepEngine()])
    .then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  const current = [CACHE, ENGINE_CACHE];
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((key) => key.startsWith("kseri-") && !current.includes(key)).map((key) => caches.delete(key))))
      .then(() => self.clients.claim()),
  );
});

/** From the network, keeping a copy of what is kept; from the kept copy when the network fails. */
async function networkFirst(request, fallback) {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(request);
    if (response.ok && (await cache.match(fallback))) await cache.put(fallback, response.clone());
    return response;
  } catch (error) {
    const kept = await cache.match(fallback);
    if (kept) return kept;
    throw error;
  }
}

/** From the kept copy (files that change only with the version), else the network. */
async function cacheFirst(request) {
  const kept = await caches.match(request);
  return kept || fetch(request);
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (url.pathname.startsWith("/api/") || url.pathname.startsWith("/ws")) return;
  if (request.mode === "navigate") {
    // Every page address is the one page; offline, the kept one (the path itself when kept).
    const kept = PRECACHE.includes(url.pathname) ? url.pathname : "/";
    event.respondWith(networkFirst(request, kept));
  } else if (url.pathname.startsWith("/offline/")) {
    event.respondWith(cacheFirst(request));
  } else if (PRECACHE.includes(url.pathname)) {
    event.respondWith(networkFirst(request, url.pathname));
  }
});
