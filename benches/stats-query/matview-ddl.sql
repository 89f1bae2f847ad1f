-- (c) game_stats_mv for matview.sql: needs spelbord_stats_variant from summary-ddl.sql.
SET client_min_messages = warning;
DROP MATERIALIZED VIEW IF EXISTS game_stats_mv;
SET work_mem = '256MB';
CREATE MATERIALIZED VIEW game_stats_mv AS
SELECT c.game, spelbord_stats_variant(c.game, c.settings) AS variant, c.reason, c.humans,
       sum(c.games)::bigint AS games, sum(c.first_wins)::bigint AS first_wins,
       sum(c.second_wins)::bigint AS second_wins, sum(c.draws)::bigint AS draws
  FROM (SELECT t.game, t.settings, r.reason, b.game_id IS NULL AS humans,
               count(*) AS games,
               count(*) FILTER (WHERE r.outcome = 'win' AND 0 = ANY (r.winners)) AS first_wins,
               count(*) FILTER (WHERE r.outcome = 'win' AND NOT 0 = ANY (r.winners)) AS second_wins,
               count(*) FILTER (WHERE r.outcome = 'draw') AS draws
          FROM results r
          JOIN games g ON g.id = r.game_id
          JOIN tables t ON t.id = g.table_id
          LEFT JOIN (SELECT DISTINCT game_id FROM game_players WHERE bot IS NOT NULL) b ON b.game_id = r.game_id
         WHERE r.outcome IN ('win', 'draw')
           AND NOT t.settings ? 'start_position'
         GROUP BY 1, 2, 3, 4) c
 GROUP BY 1, 2, 3, 4;
CREATE UNIQUE INDEX game_stats_mv_key ON game_stats_mv (game, variant, reason, humans);
ANALYZE game_stats_mv;
-- The refresh a timer would run (timed by run.sh):
-- REFRESH MATERIALIZED VIEW CONCURRENTLY game_stats_mv;
