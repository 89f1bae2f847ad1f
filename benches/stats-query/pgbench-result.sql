-- One game's result stored in a transaction of its own (a group-commit batch with one
-- end): with the trigger on, game_stats is added to in the same transaction. pgbench -D
-- moves=N sets its move count (write-cost.sh: 41 with the trigger on, 40 with it off).
INSERT INTO results (game_id, outcome, winners, reason, detail, move_count, players, started_at, ended_at)
SELECT p.game_id, 'win', '{0}', 'five_in_a_row', '{"lines": [[[3, 4], [4, 5], [5, 6], [6, 7], [7, 8]]]}',
       :moves, '[{"name": "Bench 0", "role": "X", "seat": 0}, {"name": "Bench 1", "role": "O", "seat": 1}]',
       p.started_at, now()
  FROM bench_pending p
 WHERE p.n = (SELECT nextval('bench_pending_n'));
