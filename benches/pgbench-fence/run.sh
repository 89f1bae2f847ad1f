#!/usr/bin/env bash
# PostgreSQL's CPU per move of the group commit's statement, before and after migration
# 0010 (docs/benchmarks.md, "The fence per batch"): pgbench runs each form alternately
# (30 moves a statement, 2 clients, 2,000 statements each, three rounds) on a scratch
# cluster that a release server initialises and keeps running.
#
#   benches/pgbench-fence/run.sh
#
# SPELBORD_BIN picks the server binary (default: this tree's release build, built here).
# The CPU is the cluster's processes' utime + stime from /proc, the exited backends'
# included (the postmaster's cutime + cstime).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."
if [ -z "${SPELBORD_BIN:-}" ]; then
    cargo build --release --bin spelbord
    SPELBORD_BIN=target/release/spelbord
fi
data=${TMPDIR:-/tmp}/spelbord-pgbench-fence
port=${PORT:-18091}
rm -rf "$data"
unset DATABASE_URL
APP__DATABASE__LOCAL_DIR="$data" RUST_LOG=warn PORT=$port "$SPELBORD_BIN" >"${TMPDIR:-/tmp}/spelbord-pgbench-fence.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null' EXIT
for _ in $(seq 300); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.2; done
psql -h "$data" -U spelbord -d spelbord -q -f "$here/setup.sql"
postmaster=$(head -1 "$data/postmaster.pid")
pg_ticks() {
    local total
    total=$(awk '{print $14+$15+$16+$17}' "/proc/$postmaster/stat")
    for pid in $(pgrep -P "$postmaster"); do
        total=$((total + $(awk '{print $14+$15}' "/proc/$pid/stat" 2>/dev/null || echo 0)))
    done
    echo "$total"
}
ticks_per_s=$(getconf CLK_TCK)
for round in 1 2 3; do
    for form in forshare fence; do
        before=$(pg_ticks)
        tps=$(pgbench -h "$data" -U spelbord -n -c 2 -t 2000 -f "$here/$form.sql" spelbord 2>&1 | grep -m1 tps)
        after=$(pg_ticks)
        echo "round $round $form: $(( (after - before) * 1000000 / ticks_per_s / (4000 * 30) )) µs of PostgreSQL CPU per move; $tps"
    done
done
