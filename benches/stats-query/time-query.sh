#!/usr/bin/env bash
# Median of 5 warm runs (after one warm-up run) of one prepared statistics statement.
#
#   time-query.sh DB FILE STATEMENT GAME HUMANS [PLAN_CACHE_MODE]
#
# FILE prepares STATEMENT(text, text[], boolean) (see current.sql); GAME is a game id,
# HUMANS true or false; PLAN_CACHE_MODE force_custom_plan (default: what a connection's
# first five executions get) or force_generic_plan (what sqlx's cached statement may get
# from the sixth on). Prints "<median ms> <rows>". PSQL overrides the psql command
# (default: psql -X -h ${PGHOST:-/tmp/stats-pg} -U ${PGUSER:-postgres}).
set -euo pipefail
db=$1 file=$2 stmt=$3 game=$4 humans=$5 mode=${6:-force_custom_plan}
here=$(cd "$(dirname "$0")" && pwd)
case $file in /*) ;; *) file=$PWD/$file ;; esac
psql_cmd=${PSQL:-psql -X -h ${PGHOST:-/tmp/stats-pg} -U ${PGUSER:-postgres}}
rows_file=$(mktemp)
trap 'rm -f "$rows_file"' EXIT
case $game in
    gomoku) keys='{variant,board_size}' ;;
    lines_of_action) keys='{simultaneous}' ;;
    *) keys='{}' ;;
esac
exec_line="EXECUTE $stmt('$game', '$keys', $humans);"
out=$( {
    echo "SET plan_cache_mode = $mode;"
    echo "\\i $file"
    echo "\\o $rows_file"
    echo "$exec_line"            # warm-up, its rows kept
    echo "\\o /dev/null"
    echo "\\timing on"
    for _ in 1 2 3 4 5; do echo "$exec_line"; done
    echo "\\timing off"
    echo "\\o"
} | $psql_cmd -q -At -v ON_ERROR_STOP=1 -d "$db" 2>&1 )
median=$(grep -o 'Time: [0-9.]*' <<<"$out" | awk '{print $2}' | sort -n | sed -n 3p)
rows=$(wc -l <"$rows_file")
[ -n "$median" ] || { echo "$out" >&2; exit 1; }
echo "$median $rows"
