-- The old group-commit statement (before migration 0010): each move's lease joined and locked FOR SHARE.
WITH args AS (
  SELECT array_agg(game_id) g, array_fill(nextval('bench_ply')::int, ARRAY[30]) p, array_fill(0::smallint, ARRAY[30]) s,
         array_fill('{"at":"H8"}'::text, ARRAY[30]) pl, array_fill(NULL::text, ARRAY[30]) c, array_fill(NULL::timestamptz, ARRAY[30]) d,
         array_agg(table_id) t, array_fill((SELECT max(id) FROM nodes), ARRAY[30]) n, array_fill(1::bigint, ARRAY[30]) e FROM bench_games
), batch AS (
  SELECT b.* FROM args, UNNEST(g, p, s, pl, c, d, t, n, e) AS b(game_id, ply, seat, payload, clocks_ms, deadline, table_id, node, epoch)
), held AS (
  SELECT l.table_id FROM table_leases l JOIN batch b ON l.table_id = b.table_id AND l.node = b.node AND l.epoch = b.epoch FOR SHARE OF l
), kept AS (
  SELECT * FROM batch WHERE node IS NULL OR table_id IN (SELECT table_id FROM held)
), moved AS (
  INSERT INTO moves (game_id, ply, seat, payload, clocks_ms) SELECT game_id, ply, seat, payload::jsonb, clocks_ms::bigint[] FROM kept RETURNING game_id
), deadlines AS (
  UPDATE games g SET deadline = k.deadline FROM kept k WHERE g.id = k.game_id AND g.deadline IS DISTINCT FROM k.deadline
) SELECT count(*) FROM moved;
