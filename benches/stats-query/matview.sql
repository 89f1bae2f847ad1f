-- (c) The same counts as a materialized view, refreshed on a timer instead of at each
-- result (no write cost, but stale by up to the period, and each refresh is a full count:
-- see README). DDL, then the query (it reads like summary.sql).
--
--   CREATE MATERIALIZED VIEW game_stats_mv AS <the SELECT of summary-ddl.sql's fill>;
--   CREATE UNIQUE INDEX ON game_stats_mv (game, variant, reason, humans);
--   REFRESH MATERIALIZED VIEW CONCURRENTLY game_stats_mv;   -- every few minutes
--
-- matview-ddl.sql creates it.
PREPARE stats_matview(text, text[], boolean) AS
SELECT v.variant, s.reason,
       sum(s.games)::bigint AS games,
       sum(s.first_wins)::bigint AS first_wins,
       sum(s.second_wins)::bigint AS second_wins,
       sum(s.draws)::bigint AS draws
  FROM game_stats_mv s
 CROSS JOIN LATERAL (
       SELECT coalesce(jsonb_object_agg(k, s.variant -> k), '{}'::jsonb) AS variant
         FROM unnest($2::text[]) AS k
      ) v
 WHERE s.game = $1
   AND (s.humans OR NOT $3)
 GROUP BY v.variant, s.reason
 ORDER BY v.variant, s.reason;
