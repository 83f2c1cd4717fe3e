// One table's WebSocket (docs/protocol.md): hello with the seat token, then state messages.
// It reconnects on its own after a lost connection or a phone waking up, asking with `since`
// for the states it missed, and pings to keep idle connections alive.

const PING_MS = 20000;
const PONG_WAIT_MS = 4000;
const MAX_BACKOFF_MS = 8000;

export class TableConnection {
  /**
   * @param {string} tableId
   * @param {string|null} token the seat token, null to watch
   * @param {{message: function(object), status: function(string)}} handlers
   */
  constructor(tableId, token, handlers) {
    this.tableId = tableId;
    this.token = token;
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
      socket.send(JSON.stringify({ type: "hello", protocol: 1, token: this.token, since: this.lastSeq }));
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
        if (this.lastSeq !== null && message.seq <= this.lastSeq) return;
        this.lastSeq = message.seq;
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
