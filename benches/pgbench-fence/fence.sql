-- The group commit since migration 0010: spelbord_store_moves (the node's write fence, then a lookup by key).
WITH args AS (
  SELECT array_agg(game_id) g, array_fill(nextval('bench_ply')::int, ARRAY[30]) p, array_fill(0::smallint, ARRAY[30]) s,
         array_fill('{"at":"H8"}'::text, ARRAY[30]) pl, array_fill(NULL::text, ARRAY[30]) c, array_fill(NULL::timestamptz, ARRAY[30]) d,
         array_agg(table_id) t, array_fill((SELECT max(id) FROM nodes), ARRAY[30]) n, array_fill(1::bigint, ARRAY[30]) e FROM bench_games
) SELECT count(*) FROM args, spelbord_store_moves(g, p, s, pl, c, d, t, n, e);
