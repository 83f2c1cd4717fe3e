// The server's HTTP API (docs/protocol.md) and the seat tokens this browser holds.

export class ApiError extends Error {
  /** @param details the answer's whole `error` (a `reason` and its figures, where given) */
  constructor(status, code, message, details = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

/** Call the API; JSON in and out; a refusal becomes an ApiError with the server's code and message. */
export async function api(method, path, body = undefined, token = undefined, extraHeaders = {}) {
  const headers = { ...extraHeaders };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  let response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (error) {
    throw new ApiError(0, "network", String(error));
  }
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    const error = data && data.error ? data.error : { code: `http-${response.status}`, message: response.statusText };
    throw new ApiError(response.status, error.code, error.message, error);
  }
  return data;
}

const SEATS_KEY = "kseri.seats";

function allSeats() {
  try {
    return JSON.parse(localStorage.getItem(SEATS_KEY)) || {};
  } catch {
    return {};
  }
}

/** The seat and token this browser holds at a table, or null. */
export function heldSeat(tableId) {
  return allSeats()[tableId] || null;
}

/** Remember a seat taken at a table (survives reloads and a phone going to sleep). */
export function holdSeat(tableId, seat, token) {
  const seats = allSeats();
  seats[tableId] = { seat, token, since: Date.now() };
  const ids = Object.keys(seats).sort((a, b) => seats[b].since - seats[a].since);
  for (const old of ids.slice(50)) delete seats[old];
  localStorage.setItem(SEATS_KEY, JSON.stringify(seats));
}

/** Every seat this browser holds, the most recent first: [{tableId, seat, token}]. */
export function heldSeats() {
  const seats = allSeats();
  return Object.keys(seats).filter((tableId) => seats[tableId].token)
    .sort((a, b) => seats[b].since - seats[a].since).map((tableId) => ({ tableId, ...seats[tableId] }));
}

/** The seats this browser holds as the account API takes them: [{table, token}]. */
export function heldSeatTokens() {
  return heldSeats().map(({ tableId, token }) => ({ table: tableId, token }));
}

/** Forget a seat the server no longer accepts. */
export function dropSeat(tableId) {
  const seats = allSeats();
  delete seats[tableId];
  localStorage.setItem(SEATS_KEY, JSON.stringify(seats));
}

export function playerName() {
  return localStorage.getItem("kseri.name") || "";
}

export function setPlayerName(name) {
  localStorage.setItem("kseri.name", name);
}
