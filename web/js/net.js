// The table's WebSocket, kept open: reconnects with a jittered backoff, resumes with `?since=`,
// pings and counts a silent connection as lost (docs/protocol.md, "Resuming"). The lobby's
// (`/ws/lobby`, docs/protocol.md section 7) is kept open the same way, without resuming.

/** The wait before the next attempt after `retries` failures in a row: growing, jittered. */
function retryDelay(retries) {
  return Math.min(10000, 500 * 2 ** retries) * (0.8 + Math.random() * 0.4);
}

/**
 * Opens `/ws/tables/{tableId}` and keeps it open. The first time (or after a restart) the
 * server sends a snapshot; when the page already holds the table it asks with `?since=` for
 * just the missed events. `hooks`:
 * - `resumeFrom()`: `{version, epoch}` to resume from, or null for a fresh snapshot;
 * - `connecting(resuming)`: a socket is being opened, resuming or not;
 * - `open()`: the socket is open (the page says `hello` on every connection);
 * - `message(msg)`: a message from the server, parsed;
 * - `status(kind)`: the state of the connection, for the page to say in its language: `""`
 *   (connected), `"reconnecting"`, `"gone"` when the table no longer exists, or `"closed"` when
 *   a moderator closed it (close code 4000, or `410`); after either the page stops reconnecting.
 *
 * Returns `send(msg)` (true when sent) and `resync()` (reconnect now, resuming).
 */
export function connectTable(tableId, hooks) {
  let socket = null;
  let retries = 0;     // failed connection attempts in a row, for the backoff
  let lastHeard = 0;   // when the server last sent anything
  let heartbeat = null;
  let gone = false;    // the table no longer exists: stop reconnecting
  let fresh = false;   // reconnect without `since` (the server restarted, or we are out of step)

  function connect() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const from = fresh ? null : hooks.resumeFrom();
    // Versions count within an epoch (a table rebuilt after a restart starts a new one).
    const query = from ? `?since=${from.version}&epoch=${from.epoch}` : "";
    const ws = new WebSocket(`${scheme}//${location.host}/ws/tables/${encodeURIComponent(tableId)}${query}`);
    socket = ws;
    hooks.connecting(Boolean(from));
    ws.onopen = () => {
      [retries, lastHeard, fresh] = [0, Date.now(), false];
      hooks.status("");
      hooks.open();
      heartbeat = setInterval(checkAlive, 15000);
    };
    ws.onmessage = (event) => {
      lastHeard = Date.now();
      try { hooks.message(JSON.parse(event.data)); } catch (err) { console.error(err); }
    };
    ws.onclose = (event) => {
      // 1012: the server is restarting; its versions will count from 0 again, so start afresh.
      if (event.code === 1012) fresh = true;
      // 4000: a moderator closed the table; it is not served again, so do not reconnect.
      if (event.code === 4000) {
        gone = true;
        hooks.status("closed");
      }
      dropConnection();
    };
  }

  /** Forgets the current socket and tries again after a growing, jittered delay. */
  function dropConnection() {
    if (!socket) return; // already dropped, a reconnection is on its way
    const ws = socket;
    socket = null;
    clearInterval(heartbeat);
    ws.onclose = null;
    ws.onmessage = null;
    if (ws.readyState < 2) ws.close();
    if (gone) return;
    hooks.status("reconnecting");
    const delay = retryDelay(retries);
    retries += 1;
    // A second failure in a row means the server was down: it may have restarted.
    if (retries >= 2) fresh = true;
    setTimeout(async () => {
      // After a few failures, check whether the table still exists at all.
      const status = retries >= 3 ? await fetch(`/api/tables/${encodeURIComponent(tableId)}`).then((r) => r.status).catch(() => 0) : 0;
      if (status === 404 || status === 410) {
        gone = true;
        hooks.status(status === 410 ? "closed" : "gone");
        return;
      }
      connect();
    }, delay);
  }

  /** Pings now and then; a connection silent for too long is treated as lost. */
  function checkAlive() {
    if (Date.now() - lastHeard > 40000) return dropConnection();
    send({ type: "ping", ref: "alive" });
  }

  function send(msg) {
    if (socket && socket.readyState === WebSocket.OPEN) {
      socket.send(JSON.stringify(msg));
      return true;
    }
    return false;
  }

  /** We missed something: reconnect at once, resuming from the last version applied. */
  function resync() {
    retries = 0;
    dropConnection();
  }

  connect();
  return { send, resync };
}

/**
 * Opens `/ws/lobby` and keeps it open: reconnects with the same backoff as a table's socket,
 * pings, and counts a silent connection as lost. `hooks`:
 * - `open()`: the socket is open (the page says `hello` on every connection; the server's
 *   first frame is the whole lobby);
 * - `message(msg)`: a message from the server, parsed;
 * - `status(kind)`: `""` (connected) or `"reconnecting"`.
 *
 * Returns `send(msg)` (true when sent).
 */
export function connectLobby(hooks) {
  let socket = null;
  let retries = 0;
  let lastHeard = 0;
  let heartbeat = null;

  function connect() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${scheme}//${location.host}/ws/lobby`);
    socket = ws;
    ws.onopen = () => {
      [retries, lastHeard] = [0, Date.now()];
      hooks.status("");
      hooks.open();
      heartbeat = setInterval(checkAlive, 15000);
    };
    ws.onmessage = (event) => {
      lastHeard = Date.now();
      try { hooks.message(JSON.parse(event.data)); } catch (err) { console.error(err); }
    };
    ws.onclose = () => dropConnection();
  }

  function dropConnection() {
    if (!socket) return;
    const ws = socket;
    socket = null;
    clearInterval(heartbeat);
    ws.onclose = null;
    ws.onmessage = null;
    if (ws.readyState < 2) ws.close();
    hooks.status("reconnecting");
    const delay = retryDelay(retries);
    retries += 1;
    setTimeout(connect, delay);
  }

  function checkAlive() {
    if (Date.now() - lastHeard > 40000) return dropConnection();
    send({ type: "ping", ref: "alive" });
  }

  function send(msg) {
    if (socket && socket.readyState === WebSocket.OPEN) {
      socket.send(JSON.stringify(msg));
      return true;
    }
    return false;
  }

  connect();
  return { send };
}
