#!/usr/bin/env bash
# Runs the load generator (benches/loadgen) against a release server started for it.
#
#   benches/run-load.sh closed --matches 100 --pg --json
#   benches/run-load.sh idle --connections 50000 --hold 10
#   benches/run-load.sh pairing --pairs 100 --window 20 --pg --json
#   benches/run-load.sh lobby-idle --connections 5000 --hold 20 --json
#   benches/run-load.sh bots --matches 4 --window 60 --json
#
# Builds the release server and the load generator, starts the server on 127.0.0.1:$PORT
# with a private PostgreSQL cluster in $SPELBORD_LOAD_PG (fsync and synchronous_commit on,
# as always), its limits raised so that they never throttle the load, and its
# file-descriptor limit raised; waits for /healthz; runs
#   cargo bench --bench loadgen -- "$@" --url http://127.0.0.1:$PORT --server-pid PID
#     [--pg-data $SPELBORD_LOAD_PG when the arguments have --pg]
# and stops the server (SIGTERM; it stops its cluster as the last user). One server per
# run: every run starts from a fresh process and a fresh cluster (an earlier run's millions of
# moves would otherwise cost PostgreSQL vacuum and checkpoint work inside the next window);
# KEEP_PG=1 keeps the cluster.
#
# Environment:
#   PORT              the server's port (default 18080)
#   SPELBORD_LOAD_PG  the cluster's data folder (default ${TMPDIR:-/tmp}/spelbord-load-pg)
#   NOFILE            file descriptors for the server and the load generator (default
#                     200000; raising the hard limit needs root, otherwise the hard limit
#                     in force is used and the server holds fewer connections)
#   SPELBORD_BIN      a server binary to load instead of this tree's release build (to
#                     measure an earlier build side by side; it is not rebuilt)
#   PERF_RECORD       a file: record the server with `perf record -g` for the whole run
#   SERVER_LOG        the server's log (default ${TMPDIR:-/tmp}/spelbord-load-server.log)
#   Any APP__... setting, e.g. APP__DATABASE__MAX_CONNECTIONS=20, reaches the server.
#
# The limits raised here, by setting: limits.messages_per_second and message_burst (per
# connection), limits.tables_per_minute and limits.seeks_per_minute (per client address; the
# pairing and lobby-idle modes seek far more than 30 a minute), limits.connections_per_address
# (0: no cap). Not a setting: the server's cap on all connections is its file-descriptor
# limit less a reserve (src/http/serve.rs `capacity`), hence `ulimit -n` below.
set -euo pipefail

cd "$(dirname "$0")/.."
if [ "$#" -eq 0 ]; then
    echo "usage: $0 closed|open|idle|pairing|lobby-idle|bots [loadgen options]  (see cargo bench --bench loadgen -- --help)" >&2
    exit 2
fi

PORT=${PORT:-18080}
SPELBORD_LOAD_PG=${SPELBORD_LOAD_PG:-${TMPDIR:-/tmp}/spelbord-load-pg}
SERVER_LOG=${SERVER_LOG:-${TMPDIR:-/tmp}/spelbord-load-server.log}
# Builds the server and the load generator, raises the descriptor limit.
. benches/load-build.sh

if ss -Htln "sport = :$PORT" 2>/dev/null | grep -q .; then
    echo "run-load: port $PORT is taken; set PORT" >&2
    exit 1
fi

unset DATABASE_URL
export PORT
export APP__SERVER__HOST=127.0.0.1
if [ "${KEEP_PG:-0}" != 1 ] && [ -f "$SPELBORD_LOAD_PG/PG_VERSION" ]; then
    rm -rf "$SPELBORD_LOAD_PG"
fi
export APP__DATABASE__LOCAL_DIR="$SPELBORD_LOAD_PG"
export APP__LIMITS__MESSAGES_PER_SECOND=${APP__LIMITS__MESSAGES_PER_SECOND:-100000}
export APP__LIMITS__MESSAGE_BURST=${APP__LIMITS__MESSAGE_BURST:-100000}
export APP__LIMITS__TABLES_PER_MINUTE=${APP__LIMITS__TABLES_PER_MINUTE:-1000000}
export APP__LIMITS__SEEKS_PER_MINUTE=${APP__LIMITS__SEEKS_PER_MINUTE:-1000000000}
export APP__LIMITS__CONNECTIONS_PER_ADDRESS=${APP__LIMITS__CONNECTIONS_PER_ADDRESS:-0}
export RUST_LOG=${RUST_LOG:-warn}

"$SPELBORD_BIN" serve >"$SERVER_LOG" 2>&1 &
SERVER_PID=$!
PERF_PID=
if [ -n "${PERF_RECORD:-}" ]; then
    perf record -F 999 --call-graph dwarf,16384 -p "$SERVER_PID" -o "$PERF_RECORD" 2>/dev/null &
    PERF_PID=$!
fi
stop_server() {
    if [ -n "$PERF_PID" ]; then
        kill -INT "$PERF_PID" 2>/dev/null || true
        wait "$PERF_PID" 2>/dev/null || true
    fi
    if kill -0 "$SERVER_PID" 2>/dev/null; then
        kill -TERM "$SERVER_PID"
        # The server stops its private cluster as it goes; give it up to 60 s.
        for _ in $(seq 600); do
            kill -0 "$SERVER_PID" 2>/dev/null || break
            sleep 0.1
        done
        kill -0 "$SERVER_PID" 2>/dev/null && kill -KILL "$SERVER_PID"
    fi
    wait "$SERVER_PID" 2>/dev/null || true
}
trap stop_server EXIT

# The first start runs initdb: allow two minutes.
for i in $(seq 1200); do
    if curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1; then
        break
    fi
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
        echo "run-load: the server exited; its log ($SERVER_LOG):" >&2
        tail -20 "$SERVER_LOG" >&2
        exit 1
    fi
    if [ "$i" -eq 1200 ]; then
        echo "run-load: no /healthz within 120 s" >&2
        exit 1
    fi
    sleep 0.1
done
echo "run-load: server pid $SERVER_PID on 127.0.0.1:$PORT, descriptors $NOFILE, cluster $SPELBORD_LOAD_PG, log $SERVER_LOG" >&2

EXTRA=()
for arg in "$@"; do
    if [ "$arg" = "--pg" ]; then
        EXTRA+=(--pg-data "$SPELBORD_LOAD_PG")
    fi
done
cargo bench --bench loadgen -- "$@" --url "http://127.0.0.1:$PORT" --server-pid "$SERVER_PID" "${EXTRA[@]}"
