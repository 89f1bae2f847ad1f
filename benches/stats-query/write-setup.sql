-- The write benchmark's games: `pending` (psql -v pending=N; write-cost.sh passes 120,000
-- a round) finished human games without a result, at 1,000 gomoku tables of the hottest
-- variant ({"variant": "free", "board_size": 15}, no bot), so that every result
-- pgbench-result.sql stores adds to one game_stats row (the worst case for contention).
-- Run on a copy of a seeded database with summary-ddl.sql applied.
\set ON_ERROR_STOP on
\if :{?pending}
\else
\set pending 360000
\endif
BEGIN;
CREATE TABLE bench_pending (n bigint PRIMARY KEY, game_id uuid NOT NULL, started_at timestamptz NOT NULL);
CREATE SEQUENCE bench_pending_n;
WITH hot AS (
    SELECT id FROM tables
     WHERE game = 'gomoku' AND settings @> '{"variant": "free", "board_size": 15}' AND settings -> 'bots' = '{}'
       AND NOT settings ? 'start_position'
     ORDER BY id LIMIT 1000
), made AS (
    INSERT INTO games (id, table_id, number, status, started_at, ended_at)
    SELECT md5('bench ' || h.id || k)::uuid, h.id, 1000 + k, 'finished',
           now() - interval '1 hour', now()
      FROM hot h, generate_series(1, ceil(:pending / 1000.0)::int) k
    RETURNING id, started_at
), players AS (
    INSERT INTO game_players (game_id, seat, role, player_key, name)
    SELECT m.id, s, (ARRAY['X', 'O'])[s + 1], sha256(('bench ' || s)::bytea), 'Bench ' || s
      FROM made m, generate_series(0, 1) s
)
INSERT INTO bench_pending (n, game_id, started_at)
SELECT row_number() OVER (ORDER BY id), id, started_at FROM made;
COMMIT;
VACUUM ANALYZE games, game_players, bench_pending;
SELECT count(*) AS pending FROM bench_pending;
