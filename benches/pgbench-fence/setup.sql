-- 30 tables leased by the newest node, a game each; bench_games lists them for the two statements.
SET client_min_messages = warning;
DROP TABLE IF EXISTS bench_games;
CREATE SEQUENCE IF NOT EXISTS bench_ply;
INSERT INTO tables (id, game, settings) SELECT 'bench' || i, 'gomoku', '{}' FROM generate_series(1,30) i ON CONFLICT DO NOTHING;
INSERT INTO table_leases (table_id, node, epoch) SELECT 'bench' || i, (SELECT max(id) FROM nodes), 1 FROM generate_series(1,30) i ON CONFLICT DO NOTHING;
INSERT INTO games (id, table_id, number) SELECT md5('bench' || i)::uuid, 'bench' || i, 1 FROM generate_series(1,30) i ON CONFLICT DO NOTHING;
CREATE TABLE bench_games AS SELECT md5('bench' || i)::uuid AS game_id, 'bench' || i AS table_id FROM generate_series(1,30) i;
