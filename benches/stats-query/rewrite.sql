-- (a) The same query, rewritten for the planner: the same rows as current.sql.
--
-- Two changes, each the cause of a bad plan in current.sql:
-- 1. `NOT t.settings ? 'start_position'` for `t.settings -> 'start_position' IS NULL`
--    (the same test on an object: `->` is NULL exactly when the key is absent). PostgreSQL
--    has no statistics for the `->` expression and takes IS NULL on it for 0.5 % of the
--    rows: it expected 16 gomoku tables instead of 32,217 and chose nested loops over
--    every game and result. `?` is estimated at 1 % (so NOT ? at 99 %).
-- 2. The humans-only test inside the EXISTS (`WHERE $3 AND ...`) instead of
--    `(NOT $3 OR NOT EXISTS (...))`: an EXISTS under an OR is never made a join, so it ran
--    as a subquery per game (550,958 index probes at 10^6 games), even with $3 false in a
--    custom plan (the OR is folded after sublinks are pulled up). As an AND-ed NOT EXISTS
--    it is an anti-join, whose inner side is empty when $3 is false ("One-Time Filter"),
--    in custom and generic plans alike.
-- Optional indexes that let it read only indexes: rewrite-indexes.sql.
PREPARE stats_rewrite(text, text[], boolean) AS
SELECT v.variant, r.reason,
       count(*) AS games,
       count(*) FILTER (WHERE r.outcome = 'win' AND 0 = ANY (r.winners)) AS first_wins,
       count(*) FILTER (WHERE r.outcome = 'win' AND NOT 0 = ANY (r.winners)) AS second_wins,
       count(*) FILTER (WHERE r.outcome = 'draw') AS draws
  FROM tables t
  JOIN games g ON g.table_id = t.id
  JOIN results r ON r.game_id = g.id
 CROSS JOIN LATERAL (
       SELECT coalesce(jsonb_object_agg(k, t.settings -> k), '{}'::jsonb) AS variant
         FROM unnest($2::text[]) AS k
      ) v
 WHERE t.game = $1
   AND NOT t.settings ? 'start_position'
   AND r.outcome IN ('win', 'draw')
   AND NOT EXISTS (SELECT FROM game_players p WHERE $3 AND p.game_id = g.id AND p.bot IS NOT NULL)
 GROUP BY v.variant, r.reason
 ORDER BY v.variant, r.reason;
