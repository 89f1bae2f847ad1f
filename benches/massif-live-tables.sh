#!/usr/bin/env bash
# The heap a live table holds after MOVES moves, by valgrind's massif (docs/benchmarks.md,
# "A live table's memory"): a release server built with the system allocator (massif
# watches malloc; mimalloc's own arenas hide the allocations) serves `ws_load`, which plays
# TABLES Gomoku tables (default 500) MOVES moves each and closes its sockets, leaving the
# games in play (their players away, within their reconnect grace). massif snapshots the
# heap before and 3 s after, on demand (vgdb); the difference over TABLES is the heap per
# live table, process-wide buffers that grew during the run included (the snapshot's tree,
# `ms_print`, says which is which).
#
#   benches/massif-live-tables.sh [MOVES ...]      (default: 30 100 220)
#
# Needs valgrind (Debian: `apt-get install valgrind`). The snapshots stay in
# ${TMPDIR:-/tmp}/spelbord-massif-MOVES-{before,after}.out.
set -euo pipefail
cd "$(dirname "$0")/.."
tables=${TABLES:-500}
port=${PORT:-18505}
scratch=${TMPDIR:-/tmp}
moves_list=("$@")
[ ${#moves_list[@]} -gt 0 ] || moves_list=(30 100 220)
CARGO_TARGET_DIR=target/system-allocator cargo build --release --features system-allocator --bin spelbord
server=target/system-allocator/release/spelbord
cargo bench --bench ws_load --no-run
ws_load=$(ls -t target/release/deps/ws_load-* | grep -v '\.d$' | head -1)
heap() { grep -m1 '^mem_heap_B=' "$1" | cut -d= -f2; }
for moves in "${moves_list[@]}"; do
    data="$scratch/spelbord-massif-pg"
    rm -rf "$data"
    out="$scratch/spelbord-massif-$moves"
    unset DATABASE_URL
    APP__DATABASE__LOCAL_DIR="$data" APP__LIMITS__MESSAGES_PER_SECOND=100000 APP__LIMITS__MESSAGE_BURST=100000 \
    APP__LIMITS__TABLES_PER_MINUTE=1000000 APP__LIMITS__CONNECTIONS_PER_ADDRESS=0 APP__BOTS__THREADS=1 \
    RUST_LOG=warn PORT=$port valgrind --tool=massif --vgdb=yes --massif-out-file="$out-run.out" --threshold=0.2 \
        "$server" >"$out-server.log" 2>&1 &
    vpid=$!
    for _ in $(seq 600); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.5; done
    sleep 2
    vgdb --pid=$vpid detailed_snapshot "$out-before.out" >/dev/null
    SPELBORD_URL="http://127.0.0.1:$port" TABLES=$tables MOVES=$moves "$ws_load" --bench | grep -E '^moves'
    sleep 3
    vgdb --pid=$vpid detailed_snapshot "$out-after.out" >/dev/null
    kill -INT $vpid
    wait $vpid || true
    before=$(heap "$out-before.out")
    after=$(heap "$out-after.out")
    echo "moves $moves: heap $before -> $after bytes: $(( (after - before) / tables )) bytes per live table ($tables tables)"
done
