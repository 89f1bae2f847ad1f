-- One game's result stored and added to game_stats by the same statement, as the group
-- commit's function would do it if it did the counting itself instead of the trigger
-- (run with the trigger disabled). -D moves=N as in pgbench-result.sql.
WITH stored AS (
    INSERT INTO results (game_id, outcome, winners, reason, detail, move_count, players, started_at, ended_at)
    SELECT p.game_id, 'win', '{0}', 'five_in_a_row', '{"lines": [[[3, 4], [4, 5], [5, 6], [6, 7], [7, 8]]]}',
           :moves, '[{"name": "Bench 0", "role": "X", "seat": 0}, {"name": "Bench 1", "role": "O", "seat": 1}]',
           p.started_at, now()
      FROM bench_pending p
     WHERE p.n = (SELECT nextval('bench_pending_n'))
    RETURNING game_id, outcome, winners, reason
)
INSERT INTO game_stats AS s (game, variant, reason, humans, games, first_wins, second_wins, draws)
SELECT t.game, spelbord_stats_variant(t.game, t.settings), a.reason,
       NOT EXISTS (SELECT FROM game_players p WHERE p.game_id = a.game_id AND p.bot IS NOT NULL),
       count(*),
       count(*) FILTER (WHERE a.outcome = 'win' AND 0 = ANY (a.winners)),
       count(*) FILTER (WHERE a.outcome = 'win' AND NOT 0 = ANY (a.winners)),
       count(*) FILTER (WHERE a.outcome = 'draw')
  FROM stored a
  JOIN games g ON g.id = a.game_id
  JOIN tables t ON t.id = g.table_id
 WHERE a.outcome IN ('win', 'draw')
   AND NOT t.settings ? 'start_position'
 GROUP BY 1, 2, 3, 4
 ORDER BY 1, 2, 3, 4
ON CONFLICT (game, variant, reason, humans) DO UPDATE
   SET games = s.games + EXCLUDED.games,
       first_wins = s.first_wins + EXCLUDED.first_wins,
       second_wins = s.second_wins + EXCLUDED.second_wins,
       draws = s.draws + EXCLUDED.draws;
