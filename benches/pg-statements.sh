#!/usr/bin/env bash
# Which statements PostgreSQL spends its time on under load (docs/benchmarks/history.md, "A game's
# end in one statement"): a fresh cluster with pg_stat_statements loaded, then
#   benches/run-load.sh "$@"           (default: closed --matches 100 --warmup 5 --window 30 --pg --json)
# on it, then its 22 costliest statements (calls, total and mean execution time, rows,
# buffers, WAL) and the totals.
#
#   benches/pg-statements.sh [loadgen arguments]
#
# SPELBORD_BIN picks the server binary (default: this tree's release build). The run's JSON
# line and the table are printed; the cluster is kept in $SPELBORD_LOAD_PG.
set -euo pipefail
cd "$(dirname "$0")/.."
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(closed --matches 100 --warmup 5 --window 30 --pg --json)
if [ -z "${SPELBORD_BIN:-}" ]; then
    cargo build --release --bin spelbord
    SPELBORD_BIN=target/release/spelbord
fi
export SPELBORD_BIN
data=${SPELBORD_LOAD_PG:-${TMPDIR:-/tmp}/spelbord-load-pg}
port=${PORT:-18092}
log=${TMPDIR:-/tmp}/spelbord-pg-statements.log
unset DATABASE_URL
# A server creates the cluster (and stops it when it exits, as its last user).
serve() {
    APP__DATABASE__LOCAL_DIR="$data" RUST_LOG=warn PORT=$port "$SPELBORD_BIN" >"$log" 2>&1 &
    server=$!
    for _ in $(seq 300); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && return; sleep 0.2; done
    echo "pg-statements: the server did not start (see $log)" >&2
    exit 1
}
rm -rf "$data"
serve
cat >>"$data/postgresql.conf" <<'CONF'
shared_preload_libraries = 'pg_stat_statements'
pg_stat_statements.track = all
CONF
psql -h "$data" -U spelbord -d spelbord -qc "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"
kill "$server"; wait "$server" || true
sleep 2
KEEP_PG=1 SPELBORD_LOAD_PG="$data" benches/run-load.sh "${args[@]}" | tail -1
serve
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null || true' EXIT
psql -h "$data" -U spelbord -d spelbord -c "
SELECT calls, round(total_exec_time::numeric, 0) AS ms, round((total_exec_time / calls)::numeric, 3) AS ms_per,
       rows, shared_blks_hit AS hit, shared_blks_dirtied AS dirtied, wal_records, wal_bytes,
       left(regexp_replace(query, '\s+', ' ', 'g'), 90) AS query
  FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 22"
psql -h "$data" -U spelbord -d spelbord -c "
SELECT sum(calls) AS calls, round(sum(total_exec_time)::numeric) AS ms, sum(wal_records) AS wal_records,
       sum(wal_bytes) AS wal_bytes FROM pg_stat_statements"
