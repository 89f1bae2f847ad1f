#!/usr/bin/env bash
# Checks that every alternative gives exactly the rows of the current query: for each
# game and humans-only value, (current EXCEPT ALL option) UNION ALL (option EXCEPT ALL
# current) must be empty, and the row counts equal.
#
#   compare.sh DB [STATEMENT...]      (default: stats_rewrite stats_summary stats_matview)
#
# Needs migrations/0016_game_stats.sql (and matview-ddl.sql for stats_matview) applied to DB.
set -euo pipefail
db=$1; shift
stmts=("$@"); [ ${#stmts[@]} -gt 0 ] || stmts=(stats_rewrite stats_summary stats_matview)
here=$(cd "$(dirname "$0")" && pwd)
psql_cmd=${PSQL:-psql -X -h ${PGHOST:-/tmp/stats-pg} -U ${PGUSER:-postgres}}
{
    echo "SET plan_cache_mode = force_custom_plan;"
    for f in current rewrite summary matview; do echo "\\i $here/$f.sql"; done
    for game in gomoku lines-of-action krux bughouse; do
        case $game in gomoku) keys='{variant,board_size}' ;; lines-of-action) keys='{simultaneous}' ;; *) keys='{}' ;; esac
        for humans in false true; do
            echo "CREATE TEMP TABLE ref AS EXECUTE stats_current('$game', '$keys', $humans);"
            for s in "${stmts[@]}"; do
                echo "CREATE TEMP TABLE alt AS EXECUTE $s('$game', '$keys', $humans);"
                echo "SELECT format('%-14s %-16s humans=%-5s rows %s/%s, differing %s', '$s', '$game', '$humans',
                        (SELECT count(*) FROM ref), (SELECT count(*) FROM alt),
                        (SELECT count(*) FROM ((TABLE ref EXCEPT ALL TABLE alt) UNION ALL (TABLE alt EXCEPT ALL TABLE ref)) d));"
                echo "DROP TABLE alt;"
            done
            echo "DROP TABLE ref;"
        done
    done
} | $psql_cmd -q -At -v ON_ERROR_STOP=1 -d "$db"
