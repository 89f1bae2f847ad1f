#!/usr/bin/env bash
# A scratch PostgreSQL 15 cluster for this benchmark, on a Unix socket only, with one
# seeded database per size: s4, s5, s6 (10^4, 10^5, 10^6 games), each with the
# migrations applied in order (0016, the counts, after the seed), seed.sql and matview-ddl.sql.
#
#   setup.sh             create and start it (10^6 games take some 2 minutes to seed)
#   setup.sh stop        stop it and remove its directory
#
# STATS_PG: its directory and socket directory (default /tmp/stats-pg); PORT (5432);
# SIZES: which databases (default "s4:10000 s5:100000 s6:1000000"). Run as root, the
# cluster is the system user postgres's (PostgreSQL refuses to run as root).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
dir=${STATS_PG:-/tmp/stats-pg} port=${PORT:-5432}
bin=$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)
as_pg() { if [ "$(id -u)" = 0 ]; then su postgres -c "$*"; else bash -c "$*"; fi; }
if [ "${1:-}" = stop ]; then
    as_pg "$bin/pg_ctl -D $dir/data -m fast -w stop"
    rm -rf "$dir"
    exit
fi
mkdir -p "$dir"
[ "$(id -u)" = 0 ] && chown postgres "$dir"
as_pg "$bin/initdb -D $dir/data -U postgres --auth=trust -E UTF8 --locale=C.UTF-8" >/dev/null
cat >>"$dir/data/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$dir'
port = $port
# Everything a query reads stays in PostgreSQL's buffers (10^6 games: some 1 GB), so warm
# runs read nothing from the OS; the rest is PostgreSQL's defaults (work_mem 4MB, jit on).
shared_buffers = 3GB
maintenance_work_mem = 512MB
max_wal_size = 8GB
CONF
as_pg "$bin/pg_ctl -D $dir/data -l $dir/log -w start" >/dev/null
export PGHOST=$dir PGPORT=$port PGUSER=postgres
for size in ${SIZES:-s4:10000 s5:100000 s6:1000000}; do
    db=${size%%:*} games=${size#*:}
    "$bin/createdb" "$db"
    # The schema before the counts (0016), the seed, then 0016 itself: it fills game_stats
    # from the seeded results and adds the trigger.
    for f in "$repo"/migrations/*.sql; do
        case "$f" in *0016_game_stats.sql) continue ;; esac
        "$bin/psql" -X -q -v ON_ERROR_STOP=1 -d "$db" -f "$f"
    done
    "$bin/psql" -X -q -d "$db" -v games="$games" -f "$here/seed.sql"
    "$bin/psql" -X -q -v ON_ERROR_STOP=1 -d "$db" -f "$repo/migrations/0016_game_stats.sql"
    "$bin/psql" -X -q -v ON_ERROR_STOP=1 -d "$db" -f "$here/matview-ddl.sql"
done
