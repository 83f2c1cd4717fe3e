// Protocol v2's deltas (docs/protocol.md, Protocol version 2): the state a connection holds,
// rebuilt from the first full `state` and each `delta` after it, the twin of the server's
// kseri.server.delta.apply.

/** The parts of a state message that deltas change. */
export const PARTS = ["table", "view", "fairness", "history", "turn_deadline"];

/** The parts of a full `state` message. */
export function partsOf(message) {
  const parts = {};
  for (const name of PARTS) parts[name] = message[name];
  return parts;
}

/**
 * `parts` with a delta's `changes` applied (a new object; `parts` is left as it was): each part
 * is replaced whole, or has keys set to new values and lists grown by their new items.
 */
export function applyChanges(parts, changes) {
  const result = { ...parts };
  for (const [name, change] of Object.entries(changes)) {
    if ("replace" in change) {
      result[name] = change.replace;
      continue;
    }
    const part = { ...result[name], ...(change.set || {}) };
    for (const [key, items] of Object.entries(change.add || {})) part[key] = part[key].concat(items);
    result[name] = part;
  }
  return result;
}
