// The service worker (served at /sw.js by server/api/offline.py, which fills in the list and the
// versions): on its first visit it keeps the app shell (the page, the kseri core, what the offline
// lobby needs), so that the page opens offline; the tutorial's lessons are kept too, in each
// language the page asks for (a "keep" message) or opens them in. Online, everything comes from
// the network as before (the kept copy is refreshed); offline, from what was kept. The rest of the
// API and the play WebSocket are never kept. The engine (Pyodide, 12 MB) is not fetched here: the
// page fills its cache (ENGINE_CACHE, whose version changes only with a new Pyodide) when the
// engine is wanted (offline-engine.js), and this worker serves ENGINE's files from there.
const SHELL = ["__SHELL__"];
const ENGINE = ["__ENGINE__"];
const CACHE = "kseri-shell-__SHELL_VERSION__";
const ENGINE_CACHE = "__ENGINE_CACHE__";
const LESSONS = "/api/learn/";

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  const current = [CACHE, ENGINE_CACHE];
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((key) => key.startsWith("kseri-") && !current.includes(key)).map((key) => caches.delete(key))))
      .then(() => self.clients.claim()),
  );
});

/** {keep: [address, ...]}: keep the tutorial's lessons at these addresses (one per language). */
self.addEventListener("message", (event) => {
  const wanted = (event.data?.keep || []).filter((path) => typeof path === "string" && path.startsWith(LESSONS));
  event.waitUntil(caches.open(CACHE).then((cache) => Promise.all(wanted.map((path) => cache.add(path).catch(() => {})))));
});

/** From the network, keeping a copy (of what is kept already, or always); from the kept copy
 *  when the network fails. */
async function networkFirst(request, fallback, always = false) {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(request);
    if (response.ok && (always || (await cache.match(fallback)))) await cache.put(fallback, response.clone());
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
  if (url.pathname.startsWith(LESSONS)) {
    event.respondWith(networkFirst(request, url.pathname, true));
    return;
  }
  if (url.pathname.startsWith("/api/") || url.pathname.startsWith("/ws")) return;
  if (request.mode === "navigate") {
    // Every page address is the one page; offline, the kept one (the path itself when kept).
    const kept = SHELL.includes(url.pathname) ? url.pathname : "/";
    event.respondWith(networkFirst(request, kept));
  } else if (ENGINE.includes(url.pathname)) {
    event.respondWith(cacheFirst(request));
  } else if (SHELL.includes(url.pathname)) {
    event.respondWith(networkFirst(request, url.pathname));
  }
});
