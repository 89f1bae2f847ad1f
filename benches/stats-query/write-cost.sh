#!/usr/bin/env bash
# The write cost of game_stats (migrations/0016_game_stats.sql): 10,000 transactions by pgbench, from one
# client and from four at once (2,500 each), each adding to one game_stats row:
#   upsert-hot      the upsert alone, on three rows shared by all clients (contention)
#   upsert-own      the upsert alone, each client on its own row (no contention)
#   result+trigger  a result stored, the trigger adding it to game_stats (one hot row)
#   result+upsert   a result stored and added to game_stats by one statement (trigger off:
#                   the counting done by the group commit's function itself)
#   result          a result stored with the trigger disabled (the cost today)
# Three rounds, with synchronous_commit on (each commit waits for its WAL flush, and a
# contended row stays locked until then) and off (the locking and CPU alone); statements
# prepared once a connection, as the server's are. Prints one line per run; the README
# gives the medians (summarise with write-cost-medians.sh).
#
#   write-cost.sh SOURCE_DB      (copies it to stats_write, dropped at the end)
set -euo pipefail
src=$1 db=stats_write rounds=${ROUNDS:-3}
here=$(cd "$(dirname "$0")" && pwd)
conn="-h ${PGHOST:-/tmp/stats-pg} -U ${PGUSER:-postgres}"
psql -X $conn -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db TEMPLATE $src"
# Today's indexes only (not rewrite-indexes.sql's, which results would also pay for).
psql -X $conn -q -d $db -c "DROP INDEX IF EXISTS game_players_bot_games, results_stats, games_id_table_id"
psql -X $conn -q -d $db -v pending=$((rounds * 120000)) -f "$here/write-setup.sql" >/dev/null
run() { # label, commit mode, clients, script, pgbench options...
    local label=$1 sync=$2 clients=$3 script=$4; shift 4
    local out
    out=$(PGOPTIONS="-c synchronous_commit=$sync" \
          pgbench $conn -n -M prepared -c "$clients" -j "$clients" -t $((10000 / clients)) "$@" -f "$here/$script" $db 2>&1)
    grep -q 'tps = ' <<<"$out" || { echo "$out" >&2; exit 1; }
    printf 'sync=%-3s %-15s %d client(s): %8.0f tps, %6.3f ms mean latency, %6.2f s for 10,000\n' "$sync" "$label" "$clients" \
        "$(grep -o 'tps = [0-9.]*' <<<"$out" | head -1 | cut -d' ' -f3)" \
        "$(grep -o 'latency average = [0-9.]*' <<<"$out" | cut -d' ' -f4)" \
        "$(awk '/tps = /{print 10000/$3; exit}' <<<"$out")"
}
for round in $(seq "$rounds"); do
    for sync in on off; do
        run upsert-hot $sync 1 pgbench-upsert-hot.sql
        run upsert-hot $sync 4 pgbench-upsert-hot.sql
        run upsert-own $sync 4 pgbench-upsert-own.sql
        psql -X $conn -q -d $db -c "ALTER TABLE results ENABLE TRIGGER results_count"
        run result+trigger $sync 1 pgbench-result.sql -D moves=41
        run result+trigger $sync 4 pgbench-result.sql -D moves=41
        psql -X $conn -q -d $db -c "ALTER TABLE results DISABLE TRIGGER results_count"
        run result+upsert $sync 1 pgbench-result-upsert.sql -D moves=41
        run result+upsert $sync 4 pgbench-result-upsert.sql -D moves=41
        run result $sync 1 pgbench-result.sql -D moves=40
        run result $sync 4 pgbench-result.sql -D moves=40
    done
done
psql -X $conn -q -d $db -c "ALTER TABLE results ENABLE TRIGGER results_count"
# The results stored with the trigger on (or by the upsert) were counted: once those
# stored with neither are added by hand, the summary gives the rows of the current query again.
psql -X $conn -q -d $db -c "
    UPDATE game_stats s SET games = s.games + c.n, first_wins = s.first_wins + c.n
      FROM (SELECT count(*) AS n FROM results r JOIN bench_pending p ON p.game_id = r.game_id
             WHERE r.move_count = 40) c
     WHERE s.game = 'gomoku' AND s.variant = '{\"variant\": \"free\", \"board_size\": 15}'
       AND s.reason = 'five_in_a_row' AND s.humans"
"$here/compare.sh" $db stats_summary | grep gomoku
psql -X $conn -q -d postgres -c "DROP DATABASE $db"
