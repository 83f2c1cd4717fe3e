// The offline engine: the project's own Python engine and bots (kseri.offline), run in the page by
// Pyodide (from the npm registry, served under /offline/pyodide/ and kept by the service worker).
// loadEngine() starts it once per page; offlineTable() wraps kseri.offline.OfflineTable, whose
// every answer is JSON text.

const PYODIDE = "/offline/pyodide/";
const CORE = "/offline/kseri-core.zip";
const CORE_DIR = "/home/pyodide/kseri-core";

let engine = null;

/** Pyodide with kseri.offline imported (one start per page; later calls share it). */
export function loadEngine() {
  engine ??= (async () => {
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
