#!/usr/bin/env bash
# Every option's median time (5 warm runs after one warm-up) for game 'gomoku', humans
# false and true, on each seeded database, and its EXPLAIN (ANALYZE, BUFFERS) in
# ${PLANS:-/tmp/stats-plans}/DB-OPTION-HUMANS.txt:
#   current            current.sql, as src/store/stats.rs has it
#   current/generic    the same with the generic plan (sqlx's cached statement, 6th run on)
#   rewrite            rewrite.sql, no new index
#   rewrite/generic    the same with the generic plan
#   (rewrite-indexes.sql is applied here)
#   current+idx        current.sql with those indexes
#   rewrite+idx        rewrite.sql with those indexes
#   rewrite+idx/generic
#   summary            summary.sql (migrations/0016_game_stats.sql applied here if missing)
#   matview            matview.sql (matview-ddl.sql applied here if missing), and the
#                      time of one REFRESH ... CONCURRENTLY
#
#   run.sh DB...       e.g. run.sh stats_1e5 stats_1e6
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
conn="-h ${PGHOST:-/tmp/stats-pg} -U ${PGUSER:-postgres}"
plans=${PLANS:-/tmp/stats-plans}
mkdir -p "$plans"
q() { psql -X $conn -q -v ON_ERROR_STOP=1 -d "$@"; }
explain() { # db, file, statement, humans, mode, label
    { echo "SET plan_cache_mode = $5;"; echo "\\i $here/$2"
      echo "EXPLAIN (ANALYZE, BUFFERS) EXECUTE $3('gomoku', '{variant,board_size}', $4);"
    } | q "$1" >"$plans/$1-$6-$4.txt" 2>&1
}
measure() { # db, label, file, statement, mode
    for humans in false true; do
        local r
        r=$("$here/time-query.sh" "$1" "$here/$3" "$4" gomoku $humans "$5")
        explain "$1" "$3" "$4" $humans "$5" "${2//\//-}"
        printf '%-10s %-20s humans=%-5s %10s ms  %s rows\n' "$1" "$2" $humans ${r% *} ${r#* }
    done
}
for db in "$@"; do
    echo "# $db: $(q "$db" -Atc "SELECT (SELECT count(*) FROM games) || ' games, ' || (SELECT count(*) FROM tables) || ' tables'"); load $(cut -d' ' -f1-3 /proc/loadavg)"
    q "$db" -c "DROP INDEX IF EXISTS game_players_bot_games, results_stats, games_id_table_id"
    measure "$db" current current.sql stats_current force_custom_plan
    measure "$db" current/generic current.sql stats_current force_generic_plan
    measure "$db" rewrite rewrite.sql stats_rewrite force_custom_plan
    measure "$db" rewrite/generic rewrite.sql stats_rewrite force_generic_plan
    q "$db" -f "$here/rewrite-indexes.sql"
    measure "$db" current+idx current.sql stats_current force_custom_plan
    measure "$db" rewrite+idx rewrite.sql stats_rewrite force_custom_plan
    measure "$db" rewrite+idx/generic rewrite.sql stats_rewrite force_generic_plan
    if [ -z "$(q "$db" -Atc "SELECT to_regclass('game_stats')")" ]; then q "$db" -f "$here/../../migrations/0016_game_stats.sql"; fi
    measure "$db" summary summary.sql stats_summary force_custom_plan
    if [ -z "$(q "$db" -Atc "SELECT to_regclass('game_stats_mv')")" ]; then q "$db" -f "$here/matview-ddl.sql"; fi
    measure "$db" matview matview.sql stats_matview force_custom_plan
    printf '%-10s %-20s %24s\n' "$db" "matview refresh" \
        "$(q "$db" -c '\timing on' -c "SET work_mem = '256MB'" -c 'REFRESH MATERIALIZED VIEW CONCURRENTLY game_stats_mv' | grep -o 'Time: [0-9.]* ms' | tail -1)"
done
