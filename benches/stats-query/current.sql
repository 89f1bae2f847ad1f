-- The statistics query of src/store/stats.rs (Store::game_stats) as it is, prepared as
-- sqlx prepares it: $1 the game, $2 its variant settings, $3 humans only.
PREPARE stats_current(text, text[], boolean) AS
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
   AND r.outcome IN ('win', 'draw')
   AND t.settings -> 'start_position' IS NULL
   AND (NOT $3 OR NOT EXISTS (
           SELECT 1 FROM game_players p WHERE p.game_id = g.id AND p.bot IS NOT NULL))
 GROUP BY v.variant, r.reason
 ORDER BY v.variant, r.reason;
