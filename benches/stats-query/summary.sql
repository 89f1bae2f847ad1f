-- (b) The statistics read from game_stats (summary-ddl.sql): the same rows as current.sql.
-- The stored variant is re-projected on the keys the code asks for ($2), so the code's
-- `variant_settings` stays the one that decides which keys are shown (see summary-ddl.sql).
PREPARE stats_summary(text, text[], boolean) AS
SELECT v.variant, s.reason,
       sum(s.games)::bigint AS games,
       sum(s.first_wins)::bigint AS first_wins,
       sum(s.second_wins)::bigint AS second_wins,
       sum(s.draws)::bigint AS draws
  FROM game_stats s
 CROSS JOIN LATERAL (
       SELECT coalesce(jsonb_object_agg(k, s.variant -> k), '{}'::jsonb) AS variant
         FROM unnest($2::text[]) AS k
      ) v
 WHERE s.game = $1
   AND (s.humans OR NOT $3)
 GROUP BY v.variant, s.reason
 ORDER BY v.variant, s.reason;
