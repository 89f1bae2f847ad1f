#!/usr/bin/env bash
# Runs the load generator (benches/loadgen) through HAProxy against NODES server nodes
# (default 2) that share one private PostgreSQL cluster: the cluster's overhead, on one
# machine (docs/benchmarks.md, "Several nodes").
#
#   NODES=2 benches/run-cluster-load.sh closed --matches 100 --pg --json
#   NODES=1 benches/run-cluster-load.sh closed --matches 100 --pg --json   # same proxy, one node
#
# Like benches/run-load.sh (read it first): release build, fresh cluster per run, limits
# raised so that they never throttle the load. The proxy listens on $PORT (default 18080)
# configured by deploy/haproxy.cfg (the table id from the path, hashed consistently),
# the nodes on $PORT+1 ... $PORT+NODES. The load generator counts every node's CPU as the
# server's (`--server-pid` and `--more-server-pids`); HAProxy's shows as the machine's
# "other load". Needs `haproxy` (Debian package) on PATH.
set -euo pipefail

cd "$(dirname "$0")/.."
if [ "$#" -eq 0 ]; then
    echo "usage: NODES=2 $0 closed|open [loadgen options]" >&2
    exit 2
fi
command -v haproxy >/dev/null || { echo "run-cluster-load: needs haproxy (apt-get install haproxy)" >&2; exit 1; }

NODES=${NODES:-2}
PORT=${PORT:-18080}
SPELBORD_LOAD_PG=${SPELBORD_LOAD_PG:-${TMPDIR:-/tmp}/spelbord-load-pg}
LOGS=${LOGS:-${TMPDIR:-/tmp}/spelbord-cluster-load}
mkdir -p "$LOGS"
# Builds the server and the load generator, raises the descriptor limit.
. benches/load-build.sh

unset DATABASE_URL
export APP__SERVER__HOST=127.0.0.1
[ -f "$SPELBORD_LOAD_PG/PG_VERSION" ] && rm -rf "$SPELBORD_LOAD_PG"
export APP__DATABASE__LOCAL_DIR="$SPELBORD_LOAD_PG"
export APP__LIMITS__MESSAGES_PER_SECOND=100000 APP__LIMITS__MESSAGE_BURST=100000
export APP__LIMITS__TABLES_PER_MINUTE=1000000 APP__LIMITS__CONNECTIONS_PER_ADDRESS=0
export APP__SERVER__TRUSTED_PROXIES=127.0.0.1
export RUST_LOG=${RUST_LOG:-warn}

PIDS=()
stop_all() {
    for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do
        for _ in $(seq 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
}
trap stop_all EXIT

wait_healthy() { # port pid
    for _ in $(seq 1200); do
        curl -fsS "http://127.0.0.1:$1/healthz" >/dev/null 2>&1 && return 0
        kill -0 "$2" 2>/dev/null || { echo "run-cluster-load: a process on port $1 exited (logs in $LOGS)" >&2; exit 1; }
        sleep 0.1
    done
    echo "run-cluster-load: no /healthz on port $1 within 120 s" >&2
    exit 1
}

SERVERS=""
for n in $(seq "$NODES"); do
    port=$((PORT + n))
    PORT=$port APP__CLUSTER__NODE_NAME="node$n" "$SPELBORD_BIN" serve >"$LOGS/node$n.log" 2>&1 &
    PIDS+=($!)
    # The first node initialises the cluster; the others join it.
    wait_healthy "$port" "$!"
    SERVERS+="    server node$n 127.0.0.1:$port check"$'\n'
done

# deploy/haproxy.cfg for this machine: its routing and checks, on 127.0.0.1:$PORT, these
# nodes by address, no name resolution, no request log.
awk -v port="$PORT" -v servers="$SERVERS" '
    /^[^ #]/ { section = $1 }
    section == "resolvers" { next }
    /^ *server / || /^ *log / { next }
    /^ *bind :80/ { print "    bind 127.0.0.1:" port; next }
    /^ *maxconn / { print "    maxconn 9000"; next }
    /^ *default-server / { sub(/ resolvers .*/, ""); print; printf "%s", servers; next }
    { print }
' deploy/haproxy.cfg >"$LOGS/haproxy.cfg"
haproxy -db -f "$LOGS/haproxy.cfg" >"$LOGS/haproxy.log" 2>&1 &
PIDS+=($!)
wait_healthy "$PORT" "$!"
echo "run-cluster-load: $NODES node(s) (pids ${PIDS[*]:0:$NODES}) behind HAProxy (pid ${PIDS[$NODES]}) on 127.0.0.1:$PORT; logs in $LOGS" >&2

MORE=$(IFS=,; echo "${PIDS[*]:1:$((NODES - 1))}")
EXTRA=()
[ -n "$MORE" ] && EXTRA+=(--more-server-pids "$MORE")
for arg in "$@"; do
    [ "$arg" = "--pg" ] && EXTRA+=(--pg-data "$SPELBORD_LOAD_PG")
done
cargo bench --bench loadgen -- "$@" --url "http://127.0.0.1:$PORT" --server-pid "${PIDS[0]}" "${EXTRA[@]}"
