// The load of spelbord's loadgen, aimed at the boardgame.io Gomoku server (server.js).
//
//   node load.js closed --url http://127.0.0.1:8000 --server-pid PID --matches M
//                       [--warmup 5] [--window 30] [--reuse-sockets]
//   node load.js idle   --url http://127.0.0.1:8000 --server-pid PID --connections N [--hold 20] [--sources 4]
//
// closed: M matches play at full speed. Each match creates a match with the lobby API
// (`POST /games/gomoku/create`, then `.../join` for players "0" and "1" to get their
// credentials), opens one socket.io connection per player (boardgame.io's transport:
// namespace `/gomoku`, websocket transport, `sync` with the credentials), and plays
// random legal moves: the next move is sent as soon as the mover's opponent receives
// the `update` of the move before. When a game ends (five or more in a row, or a full
// board) the match closes its sockets and starts a new one (with --reuse-sockets it
// keeps them and syncs them to the new match, as boardgame.io's own client would).
// Measured between the end of the warm-up and the end of the window: moves/s (moves
// whose update reached the opponent inside the window), "opponent-sees" latency (from
// sending the move to the opponent's socket receiving its update: p50/p99/p99.9/max),
// the server's CPU per move from /proc/PID/stat (utime + stime), the machine's busy CPU
// from /proc/stat and this process's own CPU (so that the other load is the difference).
//
// idle: N sockets connect and `sync` as spectators to matches of 50 spectators each,
// then stay idle for --hold seconds; the server's VmRSS before and after, per socket.
// --sources K binds the sockets to 127.0.0.1 .. 127.0.0.K (past the ephemeral ports).
//
// A progress line each second on stderr; the result as one JSON line on stdout.
// Everything is bounded: every wait has a timeout, and the process exits at the latest
// 30 s after the window (or the hold) ends.

'use strict';

const fs = require('node:fs');
const { execFileSync } = require('node:child_process');
const { performance } = require('node:perf_hooks');
const { io } = require('socket.io-client');

const GAME = 'gomoku';
const SIZE = 15;
const CENTRE = 7 * SIZE + 7;
/** No single wait (HTTP call, connection, sync, a move's update) lasts longer. */
const STEP_TIMEOUT_MS = 10_000;
/** The latest exit: this long after the measured window (or the idle hold) ends. */
const GRACE_MS = 30_000;

// ---------------------------------------------------------------- command line

function parseArgs(argv) {
  const [mode, ...rest] = argv;
  if (mode !== 'closed' && mode !== 'idle') {
    usage(`unknown mode ${JSON.stringify(mode)}`);
  }
  const opts = { mode, url: 'http://127.0.0.1:8000', serverPid: null, matches: 10, warmup: 5, window: 30, connections: 1000, hold: 20, sources: 1, concurrency: 200, reuseSockets: false };
  const names = { '--url': 'url', '--server-pid': 'serverPid', '--matches': 'matches', '--warmup': 'warmup', '--window': 'window', '--connections': 'connections', '--hold': 'hold', '--sources': 'sources', '--concurrency': 'concurrency' };
  for (let i = 0; i < rest.length; i += 2) {
    if (rest[i] === '--reuse-sockets') {
      opts.reuseSockets = true;
      i -= 1;
      continue;
    }
    const key = names[rest[i]];
    if (!key || rest[i + 1] === undefined) {
      usage(`bad option ${JSON.stringify(rest[i])}`);
    }
    opts[key] = key === 'url' ? rest[i + 1] : Number(rest[i + 1]);
    if (key !== 'url' && !(Number.isFinite(opts[key]) && opts[key] >= 0)) {
      usage(`${rest[i]} needs a number`);
    }
  }
  if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(opts.url)) {
    usage('--url must be http://127.0.0.1:PORT (loopback only)');
  }
  if (!Number.isInteger(opts.serverPid) || !fs.existsSync(`/proc/${opts.serverPid}/stat`)) {
    usage('--server-pid must be the pid of the running server');
  }
  if (opts.sources < 1 || opts.sources > 250) {
    usage('--sources must be 1..250');
  }
  return opts;
}

function usage(problem) {
  console.error(`load.js: ${problem}
usage: node load.js closed --url http://127.0.0.1:PORT --server-pid PID --matches M [--warmup S] [--window S] [--reuse-sockets]
       node load.js idle --url http://127.0.0.1:PORT --server-pid PID --connections N [--hold S] [--sources K] [--concurrency C]`);
  process.exit(2);
}

// ---------------------------------------------------------------- /proc readings

const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

/** The process's user + system CPU time in seconds. */
function processCpuSeconds(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which is in parentheses and may hold spaces).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after "(comm) ".
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

/** The machine's CPU time so far, busy and total, in seconds over all cores. */
function machineCpuSeconds() {
  const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0];
  const t = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest is inside user).
  const total = t.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = t[3] + t[4];
  return { busy: (total - idle) / CLK_TCK, total: total / CLK_TCK };
}

/** This process's CPU time in seconds. */
function ownCpuSeconds() {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

function rssKb(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /^VmRSS:\s+(\d+) kB/m.exec(status);
  return m ? Number(m[1]) : NaN;
}

function cpuSnapshot(pid) {
  return { at: performance.now(), server: processCpuSeconds(pid), machine: machineCpuSeconds(), own: ownCpuSeconds() };
}

// ---------------------------------------------------------------- helpers

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** `promise`, or a rejection naming `what` after `ms`. */
function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timeout: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function postJson(url, body) {
  const res = await withTimeout(
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    STEP_TIMEOUT_MS,
    `POST ${url}`,
  );
  if (!res.ok) {
    throw new Error(`http ${res.status}: POST ${new URL(url).pathname}`);
  }
  return res.json();
}

/** A new match via the lobby API, with credentials for both players. */
async function createMatch(url) {
  const { matchID } = await postJson(`${url}/games/${GAME}/create`, { numPlayers: 2 });
  const credentials = [];
  for (const playerID of ['0', '1']) {
    const joined = await postJson(`${url}/games/${GAME}/${matchID}/join`, { playerID, playerName: `p${playerID}` });
    credentials.push(joined.playerCredentials);
  }
  return { matchID, credentials };
}

/** A connected socket.io socket on the game's namespace (its own connection each). */
function connectSocket(url, localAddress) {
  const socket = io(`${url}/${GAME}`, {
    transports: ['websocket'],
    forceNew: true,
    reconnection: false,
    timeout: STEP_TIMEOUT_MS,
    ...(localAddress ? { localAddress } : {}),
  });
  const connected = new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', (err) => reject(new Error(`connect: ${err.message}`)));
  });
  return withTimeout(connected, STEP_TIMEOUT_MS, 'connect').catch((err) => {
    socket.close();
    throw err;
  });
}

/** Sends `sync` and waits for the match's state. */
function syncSocket(socket, matchID, playerID, credentials) {
  const synced = new Promise((resolve) => {
    socket.once('sync', (_matchID, syncInfo) => resolve(syncInfo.state));
  });
  socket.emit('sync', matchID, playerID, credentials, 2);
  return withTimeout(synced, STEP_TIMEOUT_MS, 'sync');
}

/** Percentile `p` (0..1) of sorted `values`, nearest rank. */
function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[rank];
}

const round = (v, digits) => (v === null || !Number.isFinite(v) ? null : Number(v.toFixed(digits)));

/** Counts failures by their message with the variable parts (ids, numbers) left out. */
function countError(errors, err) {
  const kind = String(err && err.message ? err.message : err).replace(/[0-9a-zA-Z_-]{11,}/g, 'ID');
  errors[kind] = (errors[kind] || 0) + 1;
}

// ---------------------------------------------------------------- closed loop

async function closed(opts) {
  const t0 = performance.now();
  const warmEnd = t0 + opts.warmup * 1000;
  const windowEnd = warmEnd + opts.window * 1000;
  const state = {
    stop: false,
    movesInWindow: 0,
    movesTotal: 0,
    movesThisSecond: 0,
    gamesFinished: 0,
    openSockets: 0,
    latencies: [],
    /** Every latency of the last second, for the progress line. */
    secondLatencies: [],
    errors: {},
  };
  let start = null;
  let end = null;

  const hardStop = setTimeout(() => {
    console.error('load.js: hard stop (warm-up + window + 30 s)');
    process.exit(3);
  }, opts.warmup * 1000 + opts.window * 1000 + GRACE_MS);

  const progress = setInterval(() => {
    const now = performance.now();
    const phase = now < warmEnd ? 'warm-up' : now < windowEnd ? 'window' : 'draining';
    const p99 = percentile(state.secondLatencies.sort((a, b) => a - b), 0.99);
    console.error(
      `${((now - t0) / 1000).toFixed(0).padStart(3)} s ${phase.padEnd(8)} ${String(state.movesThisSecond).padStart(6)} moves/s` +
        `  p99 ${p99 === null ? '-' : p99.toFixed(1)} ms  sockets ${state.openSockets}  games ${state.gamesFinished}` +
        `  errors ${Object.values(state.errors).reduce((a, b) => a + b, 0)}`,
    );
    state.movesThisSecond = 0;
    state.secondLatencies = [];
  }, 1000);

  setTimeout(() => {
    start = cpuSnapshot(opts.serverPid);
  }, Math.max(0, warmEnd - performance.now()));
  setTimeout(() => {
    end = cpuSnapshot(opts.serverPid);
    state.stop = true;
  }, Math.max(0, windowEnd - performance.now()));

  /**
   * One match slot: plays games one after another until the window ends. Its two
   * sockets are new for every game (as a spelbord table has its own sockets), or kept
   * and synced to the next match with --reuse-sockets.
   */
  async function matchLoop() {
    const slot = { sockets: null, onUpdate: null, onDisconnect: null };
    while (!state.stop) {
      try {
        await playOneGame(slot);
        if (!opts.reuseSockets) closeSlot(slot);
      } catch (err) {
        countError(state.errors, err);
        closeSlot(slot);
        if (!state.stop) await sleep(100);
      }
    }
    closeSlot(slot);
  }

  function closeSlot(slot) {
    if (slot.sockets) {
      for (const socket of slot.sockets) socket.close();
      state.openSockets -= slot.sockets.length;
      slot.sockets = null;
    }
  }

  /** Two connected sockets whose events go to the slot's current game. */
  async function openSlot(slot) {
    const sockets = [];
    try {
      for (let p = 0; p < 2; p += 1) {
        sockets.push(await connectSocket(opts.url));
        state.openSockets += 1;
      }
    } catch (err) {
      for (const socket of sockets) socket.close();
      state.openSockets -= sockets.length;
      throw err;
    }
    sockets.forEach((socket, p) => {
      socket.on('update', (id, update) => slot.onUpdate && slot.onUpdate(p, id, update));
      socket.on('disconnect', (reason) => slot.onDisconnect && slot.onDisconnect(reason));
    });
    slot.sockets = sockets;
  }

  async function playOneGame(slot) {
    const { matchID, credentials } = await createMatch(opts.url);
    if (!slot.sockets) await openSlot(slot);
    const { sockets } = slot;
    const states = await Promise.all(sockets.map((s, p) => syncSocket(s, matchID, String(p), credentials[p])));
    let stateID = states[0]._stateID;

    // The opponent's socket resolves the move in flight when the update of the next
    // state reaches it. Updates reaching the mover (its own move echoed) are ignored.
    let pending = null;
    slot.onUpdate = (p, id, update) => {
      if (pending && id === matchID && p === pending.opponent && update._stateID === pending.stateID) {
        const done = pending;
        pending = null;
        done.resolve(update);
      }
    };
    slot.onDisconnect = (reason) => {
      if (pending) {
        const done = pending;
        pending = null;
        done.reject(new Error(`disconnect: ${reason}`));
      }
    };

    // The empty squares, to draw a random legal move from (X opens on the centre).
    const empty = Array.from({ length: SIZE * SIZE }, (_, i) => i);
    let mover = 0;
    for (let moveNo = 0; !state.stop; moveNo += 1) {
      let square;
      if (moveNo === 0) {
        square = CENTRE;
        empty.splice(CENTRE, 1);
      } else {
        const k = Math.floor(Math.random() * empty.length);
        square = empty[k];
        empty[k] = empty[empty.length - 1];
        empty.pop();
      }
      const x = square % SIZE;
      const y = Math.floor(square / SIZE);
      const seen = new Promise((resolve, reject) => {
        pending = { opponent: 1 - mover, stateID: stateID + 1, resolve, reject };
      });
      const sentAt = performance.now();
      const action = {
        type: 'MAKE_MOVE',
        payload: { type: 'play', args: [{ x, y }], playerID: String(mover), credentials: credentials[mover] },
      };
      sockets[mover].emit('update', action, stateID, matchID, String(mover));
      const update = await withTimeout(seen, STEP_TIMEOUT_MS, 'opponent sees the move');
      const seenAt = performance.now();
      if (update.G.moveCount !== moveNo + 1) {
        throw new Error('update does not hold the move');
      }
      state.movesTotal += 1;
      state.movesThisSecond += 1;
      state.secondLatencies.push(seenAt - sentAt);
      if (seenAt >= warmEnd && seenAt < windowEnd) {
        state.movesInWindow += 1;
        state.latencies.push(seenAt - sentAt);
      }
      stateID = update._stateID;
      if (update.ctx.gameover !== undefined) {
        state.gamesFinished += 1;
        return;
      }
      mover = 1 - mover;
    }
  }

  await Promise.all(Array.from({ length: opts.matches }, () => matchLoop()));
  clearInterval(progress);
  clearTimeout(hardStop);

  const seconds = (end.at - start.at) / 1000;
  const moves = state.movesInWindow;
  const sorted = state.latencies.sort((a, b) => a - b);
  const serverCpu = end.server - start.server;
  const machineBusy = end.machine.busy - start.machine.busy;
  const machineTotal = end.machine.total - start.machine.total;
  const ownCpu = end.own - start.own;
  return {
    peer: 'boardgame.io',
    mode: 'closed',
    matches: opts.matches,
    reuse_sockets: opts.reuseSockets,
    window_s: round(seconds, 2),
    moves,
    moves_per_s: round(moves / seconds, 0),
    server_cpu_us_per_move: round((serverCpu * 1e6) / moves, 1),
    p50_ms: round(percentile(sorted, 0.5), 2),
    p99_ms: round(percentile(sorted, 0.99), 2),
    p999_ms: round(percentile(sorted, 0.999), 2),
    max_ms: round(sorted.length ? sorted[sorted.length - 1] : null, 2),
    server_cpu_cores: round(serverCpu / seconds, 3),
    load_cpu_cores: round(ownCpu / seconds, 3),
    load_cpu_us_per_move: round((ownCpu * 1e6) / moves, 1),
    machine_busy_cores: round(machineBusy / seconds, 3),
    machine_busy_pct: round((100 * machineBusy) / machineTotal, 1),
    other_busy_cores: round((machineBusy - serverCpu - ownCpu) / seconds, 3),
    games_finished: state.gamesFinished,
    errors: state.errors,
  };
}

// ---------------------------------------------------------------- idle connections

async function idle(opts) {
  const perMatch = 50;
  const errors = {};
  const sockets = [];
  let attempted = 0;
  const deadline = performance.now() + STEP_TIMEOUT_MS * 6 + opts.connections * 20 + opts.hold * 1000 + GRACE_MS;
  const hardStop = setTimeout(() => {
    console.error('load.js: hard stop');
    process.exit(3);
  }, deadline - performance.now());

  // Matches for the spectators, created before the baseline is read.
  const matchIDs = [];
  for (let i = 0; i < Math.ceil(opts.connections / perMatch); i += 1) {
    matchIDs.push((await createMatch(opts.url)).matchID);
  }
  await sleep(1000);
  const rssBefore = rssKb(opts.serverPid);

  const progress = setInterval(() => {
    console.error(`connecting: ${sockets.length} open, ${attempted} tried, server VmRSS ${rssKb(opts.serverPid)} kB`);
  }, 1000);
  let next = 0;
  async function worker() {
    while (next < opts.connections && performance.now() < deadline) {
      const i = next;
      next += 1;
      attempted += 1;
      const source = `127.0.0.${1 + (i % opts.sources)}`;
      try {
        const socket = await connectSocket(opts.url, opts.sources > 1 ? source : undefined);
        sockets.push(socket);
        await syncSocket(socket, matchIDs[Math.floor(i / perMatch)], null, undefined);
      } catch (err) {
        countError(errors, err);
      }
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency) }, () => worker()));
  clearInterval(progress);

  const open = () => sockets.filter((s) => s.connected).length;
  const holdEnd = performance.now() + opts.hold * 1000;
  while (performance.now() < holdEnd) {
    console.error(`holding: ${open()} open, server VmRSS ${rssKb(opts.serverPid)} kB`);
    await sleep(Math.min(1000, Math.max(0, holdEnd - performance.now())));
  }
  const rssAfter = rssKb(opts.serverPid);
  const held = open();
  for (const socket of sockets) socket.close();
  clearTimeout(hardStop);
  return {
    peer: 'boardgame.io',
    mode: 'idle',
    connections: held,
    asked: opts.connections,
    sources: opts.sources,
    spectators_per_match: perMatch,
    server_rss_before_kb: rssBefore,
    server_rss_after_kb: rssAfter,
    kb_per_connection: round((rssAfter - rssBefore) / Math.max(1, held), 2),
    errors,
  };
}

// ---------------------------------------------------------------- main

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const result = opts.mode === 'closed' ? await closed(opts) : await idle(opts);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  // Sockets closing and keep-alive HTTP connections must not keep the process alive.
  setTimeout(() => process.exit(0), 500).unref();
}

main().catch((err) => {
  console.error(`load.js: ${err.stack || err}`);
  process.exit(1);
});
