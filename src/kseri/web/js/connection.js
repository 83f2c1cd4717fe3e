// One table's WebSocket (docs/protocol.md): hello with the seat token (or, at pass and play,
// every seat's), then states. It speaks protocol v2: after a full `state`, `delta` messages are
// applied to the state it holds (delta.js) and handed on as whole states, so the table's
// screen sees states only; a delta that does not follow the state held asks for the full state
// (`sync`). It reconnects on its own after a lost connection or a phone waking up (a full state
// comes on every hello), and pings to keep idle connections alive.
import { applyChanges, partsOf } from "./delta.js";

const PING_MS = 20000;
const PONG_WAIT_MS = 4000;
const MAX_BACKOFF_MS = 8000;

export class TableConnection {
  /**
   * @param {string} tableId
   * @param {string|null} token the seat token, null to watch
   * @param {{message: function(object), status: function(string)}} handlers
   * @param {string[]|null} tokens pass and play: every seat's token this device holds
   */
  constructor(tableId, token, handlers, tokens = null) {
    this.tableId = tableId;
    this.token = token;
    this.tokens = tokens;
    this.parts = null; // the state held (protocol v2), which deltas change
    this.handlers = handlers;
    this.lastSeq = null;
    this.socket = null;
    this.closed = false;
    this.backoff = 500;
    this.timer = null;
    this.pinger = null;
    this.pongTimer = null;
    this.wake = () => {
      if (document.visibilityState === "visible") this.check();
    };
    document.addEventListener("visibilitychange", this.wake);
    window.addEventListener("online", this.wake);
  }

  open() {
    this.closed = false;
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const socket = new WebSocket(`${scheme}//${location.host}/ws/tables/${encodeURIComponent(this.tableId)}`);
    this.socket = socket;
    this.handlers.status("connecting");
    socket.onopen = () => {
      this.backoff = 500;
      const hello = { type: "hello", protocol: 2, token: this.token, since: this.lastSeq };
      if (this.tokens) Object.assign(hello, { token: null, tokens: this.tokens });
      this.parts = null;
      socket.send(JSON.stringify(hello));
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this.send({ type: "ping" }), PING_MS);
    };
    socket.onmessage = (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message.type === "state") {
        // a full state: on hello, after `sync` or `show`; the deltas count from it
        this.parts = partsOf(message);
        this.lastSeq = message.seq;
      } else if (message.type === "delta") {
        if (this.parts === null) return; // a full state is on its way
        if (message.base !== this.lastSeq) {
          this.parts = null;
          this.send({ type: "sync" });
          return;
        }
        this.parts = applyChanges(this.parts, message.changes);
        this.lastSeq = message.seq;
        message = { type: "state", seq: message.seq, event: message.event, ...this.parts };
      } else if (message.type === "presence" && this.parts) {
        this.parts = { ...this.parts, table: message.table };
      }
      clearTimeout(this.pongTimer);
      if (message.type === "welcome") this.handlers.status("online");
      if (message.type !== "pong") this.handlers.message(message);
    };
    socket.onclose = () => {
      clearInterval(this.pinger);
      if (this.socket !== socket || this.closed) return;
      this.handlers.status("offline");
      this.timer = setTimeout(() => this.ensureOpen(), this.backoff);
      this.backoff = Math.min(this.backoff * 2, MAX_BACKOFF_MS);
    };
  }

  /**
   * After sleep or a network change a socket can look open and be dead: ping it, and reconnect
   * unless something comes back soon; reconnect at once when it is closed.
   */
  check() {
    if (this.send({ type: "ping" })) {
      clearTimeout(this.pongTimer);
      this.pongTimer = setTimeout(() => {
        const dead = this.socket;
        this.socket = null;
        dead.close();
        this.open();
      }, PONG_WAIT_MS);
    } else {
      this.ensureOpen();
    }
  }

  /** Reconnect now unless the socket is open or opening. */
  ensureOpen() {
    if (this.closed) return;
    clearTimeout(this.timer);
    const state = this.socket ? this.socket.readyState : WebSocket.CLOSED;
    if (state === WebSocket.OPEN || state === WebSocket.CONNECTING) return;
    this.open();
  }

  /** Send a message; false when the connection is down (it is not queued). */
  send(message) {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.pongTimer);
    clearInterval(this.pinger);
    document.removeEventListener("visibilitychange", this.wake);
    window.removeEventListener("online", this.wake);
    if (this.socket) this.socket.close();
  }
}
